export * from './lib/config-error';
export * from './lib/load-config';
export * from './lib/validators/env-value';
export * from './lib/services/service-config';
export * from './lib/services/control-plane.config';
export * from './lib/services/sync-dispatcher.config';
export * from './lib/services/ai-gateway.config';
export * from './lib/services/mcp-gateway.config';
