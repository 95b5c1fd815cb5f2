import type { PassThroughResources } from '../lib/pass-through-resources';

/**
 * What Anthropic's API keeps for its caller (files, message batches), for the `/anthropic`
 * pass-through. Skills and the organization's admin APIs are not listed: the gateway cannot tell
 * whose they are.
 */
export const ANTHROPIC_PASS_THROUGH_RESOURCES: PassThroughResources = {
  collections: [
    { kind: 'file', path: '/v1/files', missing: 'File not found: {id}' },
    { kind: 'message_batch', path: '/v1/messages/batches', missing: 'Message batch not found: {id}' },
  ],
  creations: [],
  // A document or image block's `{"type": "file", "file_id": …}` source.
  references: { file_id: 'file' },
  cursors: { after: 'after_id', before: 'before_id' },
  multipart: ['/v1/files'],
  shared: [
    { method: 'GET', path: '/v1/models' },
    { method: 'GET', path: '/v1/models/{}' },
    { method: 'POST', path: '/v1/messages/count_tokens' },
  ],
};
