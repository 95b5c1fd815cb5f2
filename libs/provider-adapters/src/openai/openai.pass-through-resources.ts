import type { PassThroughResources } from '../lib/pass-through-resources';

/**
 * What OpenAI's API keeps for its caller (the API reference's object collections), for the `/openai`
 * pass-through. Chat completions stored with `store: true`, fine-tuning, evals, containers, videos
 * and the organization's admin APIs are not listed: the gateway cannot tell whose they are.
 */
export const OPENAI_PASS_THROUGH_RESOURCES: PassThroughResources = {
  collections: [
    { kind: 'file', path: '/v1/files', nativeKind: 'file', missing: 'No such File object: {id}' },
    { kind: 'upload', path: '/v1/uploads', missing: 'No such Upload object: {id}' },
    {
      kind: 'batch',
      path: '/v1/batches',
      nativeKind: 'batch',
      missing: 'No such Batch object: {id}',
      names: { input_file_id: 'file', output_file_id: 'file', error_file_id: 'file' },
    },
    { kind: 'vector_store', path: '/v1/vector_stores', nativeKind: 'vector_store', missing: "No vector store found with id '{id}'." },
    { kind: 'assistant', path: '/v1/assistants', nativeKind: 'assistant', missing: "No assistant found with id '{id}'." },
    { kind: 'thread', path: '/v1/threads', nativeKind: 'thread', missing: "No thread found with id '{id}'." },
    { kind: 'conversation', path: '/v1/conversations', missing: "Conversation with id '{id}' not found." },
    // POST /v1/responses is a model call, recorded below as a creation.
    { kind: 'response', path: '/v1/responses', nativeKind: 'response', creates: false, missing: "Response with id '{id}' not found." },
  ],
  creations: [
    { method: 'POST', path: '/v1/responses', kind: 'response', idAt: ['id', 'response.id'] },
    { method: 'POST', path: '/v1/threads/runs', kind: 'thread', idAt: ['thread_id'] },
    { method: 'POST', path: '/v1/uploads/{}/complete', kind: 'file', idAt: ['file.id'] },
  ],
  references: {
    file_id: 'file',
    file_ids: 'file',
    input_file_id: 'file',
    assistant_id: 'assistant',
    vector_store_id: 'vector_store',
    vector_store_ids: 'vector_store',
    previous_response_id: 'response',
    conversation: 'conversation',
  },
  cursors: { after: 'after', before: 'before' },
  multipart: ['/v1/files', '/v1/uploads/{}/parts', '/v1/images/edits', '/v1/images/variations', '/v1/audio/transcriptions', '/v1/audio/translations'],
  shared: [
    { method: 'GET', path: '/v1/models' },
    { method: 'GET', path: '/v1/models/{}' },
    { method: 'POST', path: '/v1/responses/input_tokens' },
  ],
};
