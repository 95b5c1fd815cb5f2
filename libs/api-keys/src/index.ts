export { ApiKeyFormat, hashApiKey } from './lib/api-key-format';
export { ApiKeyColumns } from './lib/api-key.columns';
export { ApiKeyLookup } from './lib/api-key-lookup';
export type { ApiKeyLookupOptions, UsableKey } from './lib/api-key-lookup';
