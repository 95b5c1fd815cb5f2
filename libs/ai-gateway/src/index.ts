export * from './lib/config/gateway-config';
export * from './lib/gateway.module';
export * from './lib/dashboard/gateway-dashboard';
export * from './lib/gateway-clock';
export * from './lib/deployment-cooldowns';
export * from './lib/call-router';
export * from './lib/database';
export * from './lib/client-envelope-error.filter';
export { AiGatewayProjectSync } from './lib/projects/project-sync';
