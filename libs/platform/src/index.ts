export * from './lib/errors/api-error';
export * from './lib/errors/error-envelope.filter';
export * from './lib/errors/validation';
export * from './lib/health/health.module';
export * from './lib/database/database.module';
export * from './lib/bootstrap/platform.module';
export * from './lib/bootstrap/run-service';
