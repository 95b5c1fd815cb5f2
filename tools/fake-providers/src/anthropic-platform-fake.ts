// The rest of Anthropic's API that only the gateway's /anthropic pass-through reaches, in its wire
// format (a key and anthropic-version required as for messages, checked by the caller):
//   GET  /v1/models                          the model list ({data, has_more, first_id, last_id})
//   POST /v1/files (multipart), GET /v1/files the Files API: uploads kept in memory
//   GET, DELETE /v1/files/{id}                one file's metadata, its deletion
//   POST /v1/messages/batches                 a message batch, ended at once (its requests answered
//                                             as /v1/messages would answer them)
//   GET  /v1/messages/batches[/{id}[/results]] the batches, one batch, its results as JSONL
//   POST /v1/messages/batches/{id}/cancel, DELETE /v1/messages/batches/{id}
//   /v1/skills…                               the Skills API (anthropic-skills-fake.ts)
// An unknown id is Anthropic's 404 (not_found_error).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { claudeAnswer, problemWith, sendAnthropicError, type MessagesRequest } from './anthropic-fake.ts';
import { handleSkills } from './anthropic-skills-fake.ts';

const MODELS = [
  { type: 'model', id: 'claude-opus-4-6', display_name: 'Claude Opus 4.6', created_at: '2026-02-05T00:00:00Z' },
  { type: 'model', id: 'claude-sonnet-4-6', display_name: 'Claude Sonnet 4.6', created_at: '2026-02-17T00:00:00Z' },
  { type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { type: 'model', id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' },
];

interface StoredFile {
  type: 'file';
  id: string;
  filename: string;
  mime_type: string;
  size_bytes: number;
  created_at: string;
  downloadable: boolean;
}

interface Batch {
  batch: Record<string, unknown>;
  results: string;
}

const files: StoredFile[] = [];
const batches = new Map<string, Batch>();
let counter = 0;
const nextId = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(counter++).toString(36)}`;

function send(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': contentType, 'request-id': `req_fake${Date.now()}` });
  res.end(text);
}

/** Runs the answer and says that the request was answered. */
function answered(answer: () => void): true {
  answer();
  return true;
}

function page<T extends { id: string }>(data: T[]): Record<string, unknown> {
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** Answers the request when it is one of these endpoints (true), else leaves it to the messages fake. */
export function handleAnthropicPlatform(req: IncomingMessage, res: ServerResponse, body: string, path: string, query: URLSearchParams): boolean {
  const method = req.method ?? 'GET';
  if (path === '/v1/skills' || path.startsWith('/v1/skills/')) return handleSkills(req, res, body, path, query);
  if (method === 'GET' && path === '/v1/models') return answered(() => send(res, 200, page(MODELS)));
  if (path === '/v1/files') {
    if (method === 'GET') return answered(() => send(res, 200, page([...files].reverse())));
    if (method !== 'POST') return false;
    // Anthropic's SDK sends a multipart form with one `file` part.
    const filename = /filename="([^"]*)"/.exec(body)?.[1];
    if (!filename || !String(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
      return answered(() => sendAnthropicError(res, 400, 'invalid_request_error', 'fake: a multipart file upload is required'));
    }
    const mimeType = /Content-Type: ([^\r\n]+)\r\n\r\n/i.exec(body.slice(body.indexOf(filename)))?.[1] ?? 'application/octet-stream';
    const file: StoredFile = {
      type: 'file',
      id: nextId('file'),
      filename,
      mime_type: mimeType,
      size_bytes: Buffer.byteLength(body),
      created_at: new Date().toISOString(),
      downloadable: false,
    };
    files.push(file);
    return answered(() => send(res, 200, file));
  }
  if (path === '/v1/messages/batches') {
    if (method === 'GET') return answered(() => send(res, 200, page([...batches.values()].map((entry) => entry.batch as { id: string }))));
    if (method === 'POST') return answered(() => createBatch(req, res, body));
    return false;
  }
  const filePath = /^\/v1\/files\/([^/]+)$/.exec(path);
  if (filePath && (method === 'GET' || method === 'DELETE')) {
    const id = decodeURIComponent(filePath[1] ?? '');
    const at = files.findIndex((file) => file.id === id);
    if (at < 0) return answered(() => sendAnthropicError(res, 404, 'not_found_error', `File not found: ${id}`));
    if (method === 'GET') return answered(() => send(res, 200, files[at]));
    files.splice(at, 1);
    return answered(() => send(res, 200, { id, type: 'file_deleted' }));
  }
  const batchPath = /^\/v1\/messages\/batches\/([^/]+)(\/results|\/cancel)?$/.exec(path);
  const batchAction = batchPath?.[2] ?? '';
  if (batchPath && ((method === 'GET' && batchAction !== '/cancel') || (method === 'POST' && batchAction === '/cancel') || (method === 'DELETE' && batchAction === ''))) {
    const id = decodeURIComponent(batchPath[1] ?? '');
    const entry = batches.get(id);
    if (!entry) return answered(() => sendAnthropicError(res, 404, 'not_found_error', `fake: message batch not found: ${id}`));
    if (method === 'DELETE') {
      batches.delete(id);
      return answered(() => send(res, 200, { id, type: 'message_batch_deleted' }));
    }
    // Ended at once, a batch has nothing left to cancel: it is answered as it is.
    if (batchAction === '/results') send(res, 200, entry.results, 'application/binary');
    else send(res, 200, entry.batch);
    return true;
  }
  return false;
}

function createBatch(req: IncomingMessage, res: ServerResponse, body: string): void {
  let requests: { custom_id?: unknown; params?: MessagesRequest }[];
  try {
    requests = (JSON.parse(body) as { requests?: typeof requests }).requests ?? [];
  } catch {
    return sendAnthropicError(res, 400, 'invalid_request_error', 'fake: the request body is not valid JSON');
  }
  if (!Array.isArray(requests) || requests.length === 0) return sendAnthropicError(res, 400, 'invalid_request_error', 'requests: at least one request is required');
  const version = String(req.headers['anthropic-version']);
  const lines = requests.map((request) => {
    const problem = request.params ? problemWith(request.params, version) : 'params: Field required';
    const result = problem
      ? { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: problem } } }
      : { type: 'succeeded', message: claudeAnswer(request.params as MessagesRequest, String(request.params?.model)).message };
    return JSON.stringify({ custom_id: request.custom_id, result });
  });
  const id = nextId('msgbatch');
  const now = new Date().toISOString();
  const errored = lines.filter((line) => line.includes('"type":"errored"')).length;
  const host = req.headers.host ?? '127.0.0.1';
  const batch = {
    id,
    type: 'message_batch',
    processing_status: 'ended',
    request_counts: { processing: 0, succeeded: lines.length - errored, errored, canceled: 0, expired: 0 },
    ended_at: now,
    created_at: now,
    expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    archived_at: null,
    cancel_initiated_at: null,
    results_url: `http://${host}/anthropic/v1/messages/batches/${id}/results`,
  };
  batches.set(id, { batch, results: `${lines.join('\n')}\n` });
  send(res, 200, batch);
}
