export * from './control-plane-api.module';
