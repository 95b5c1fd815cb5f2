// OpenAI's Conversations API, which only the gateway's /openai pass-through reaches (a bearer key
// required, as for every OpenAI endpoint): POST /v1/conversations ({items?, metadata?}), GET and
// POST (metadata) and DELETE /v1/conversations/{id}, GET /v1/conversations/{id}/items (a list in
// OpenAI's shape), POST /v1/conversations/{id}/items ({items}). Kept in memory.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendOpenAiError } from './openai-fake.ts';

interface Conversation {
  object: Record<string, unknown>;
  items: Record<string, unknown>[];
}

const conversations = new Map<string, Conversation>();
let counter = 0;
const nextId = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(counter++).toString(36)}`;

function send(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_fake_${Date.now()}` });
  res.end(JSON.stringify(body));
}

/** Answers the request when it is a Conversations API call (true), else leaves it to the caller. */
export function handleConversations(req: IncomingMessage, res: ServerResponse, body: string, path: string): boolean {
  const match = /^\/v1\/conversations(?:\/([^/]+)(\/items)?)?$/.exec(path);
  if (!match) return false;
  if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) {
    sendOpenAiError(res, 401, 'invalid_request_error', 'invalid_api_key', 'fake: you did not provide an API key');
    return true;
  }
  let request: { items?: unknown; metadata?: unknown } = {};
  if (body !== '') {
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      sendOpenAiError(res, 400, 'invalid_request_error', null, 'fake: we could not parse the JSON body of your request');
      return true;
    }
  }
  const [, id, items] = match;
  if (id === undefined) {
    if (req.method !== 'POST') return false;
    const object = { id: nextId('conv'), object: 'conversation', created_at: Math.floor(Date.now() / 1000), metadata: request.metadata ?? {} };
    const added = (Array.isArray(request.items) ? request.items : []).map((item) => ({ id: nextId('msg'), status: 'completed', ...(item as object) }));
    conversations.set(object.id, { object, items: added });
    send(res, object);
    return true;
  }
  const conversation = conversations.get(id);
  if (!conversation) {
    sendOpenAiError(res, 404, 'invalid_request_error', 'not_found', `fake: Conversation with id '${id}' not found.`);
    return true;
  }
  if (items && req.method === 'POST') {
    const added = (Array.isArray(request.items) ? request.items : []).map((item) => ({ id: nextId('msg'), status: 'completed', ...(item as object) }));
    conversation.items.push(...added);
    send(res, { object: 'list', data: added, first_id: added[0]?.id ?? null, last_id: added.at(-1)?.id ?? null, has_more: false });
  } else if (items && req.method === 'GET') {
    const data = [...conversation.items].reverse();
    send(res, { object: 'list', data, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null, has_more: false });
  } else if (!items && req.method === 'GET') send(res, conversation.object);
  else if (!items && req.method === 'POST') {
    conversation.object = { ...conversation.object, metadata: request.metadata ?? {} };
    send(res, conversation.object);
  } else if (!items && req.method === 'DELETE') {
    conversations.delete(id);
    send(res, { id, object: 'conversation.deleted', deleted: true });
  } else return false;
  return true;
}
