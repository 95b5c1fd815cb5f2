import type { PassThroughResources } from '../lib/pass-through-resources';

/**
 * What Anthropic's API keeps for its caller (files, message batches, custom skills and their
 * versions), for the `/anthropic` pass-through and the Skills API at the gateway's root.
 * Anthropic's own skills (`pptx`, `xlsx`, `docx`, `pdf`: ids without the `skill_` of custom ones)
 * are every key's to read and use. The organization's admin APIs are not listed: the gateway
 * cannot tell whose they are.
 */
export const ANTHROPIC_PASS_THROUGH_RESOURCES: PassThroughResources = {
  collections: [
    { kind: 'file', path: '/v1/files', missing: 'File not found: {id}' },
    { kind: 'message_batch', path: '/v1/messages/batches', missing: 'Message batch not found: {id}' },
    { kind: 'skill', path: '/v1/skills', missing: 'Skill not found: {id}', published: /^(?!skill_)/, pageToken: { query: 'page', from: 'next_page' } },
  ],
  creations: [],
  // A document or image block's `{"type": "file", "file_id": …}` source; a container's `skills: [{skill_id}]`.
  references: { file_id: 'file', skill_id: 'skill' },
  cursors: { after: 'after_id', before: 'before_id' },
  multipart: ['/v1/files', '/v1/skills', '/v1/skills/{}/versions'],
  shared: [
    { method: 'GET', path: '/v1/models' },
    { method: 'GET', path: '/v1/models/{}' },
    { method: 'POST', path: '/v1/messages/count_tokens' },
  ],
};
