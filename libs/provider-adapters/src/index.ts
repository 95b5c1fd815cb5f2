export * from './lib/provider-adapter';
export * from './lib/provider-error';
export * from './lib/upstream-http';
export * from './lib/provider-registry';
export * from './lib/sse';
export * from './lib/parameter-map';
export * from './openai/openai.adapter';
export * from './messages-chat/messages-bridge';
