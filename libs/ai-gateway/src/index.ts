export * from './lib/config/gateway-config';
export * from './lib/gateway.module';
