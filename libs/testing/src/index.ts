export * from './lib/test-database';
export * from './lib/dev-idp-tokens';
export * from './lib/built-app';
export * from './lib/service-health';
