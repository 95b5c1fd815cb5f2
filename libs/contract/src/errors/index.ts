export { ContractErrorFilter } from './contract-error.filter';
export { ContractHttpError } from './contract-http-error';
export type { ErrorEnvelope } from './contract-http-error';
