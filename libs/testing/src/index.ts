export * from './lib/test-database';
export * from './lib/dev-idp-tokens';
export * from './lib/built-app';
export * from './lib/service-health';
export * from './lib/test-control-plane';
export * from './lib/fake-providers-process';
export * from './lib/test-browser';
export * from './lib/ui-test-stack';
