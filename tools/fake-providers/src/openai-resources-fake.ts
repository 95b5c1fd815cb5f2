// OpenAI's stored resources, in memory, in the real wire format (used by the OpenAI fake and, through
// it, the Azure fake): files (multipart upload, content), batches, vector stores (files, search),
// assistants, threads, messages and runs (streamed as OpenAI's run events), uploads (created, sent
// in multipart parts, completed into a file whose content is the parts in the order named, or cancelled).
//   A batch is `validating` when created, `in_progress` until it is 200 ms old (or
//   metadata.fake_delay_ms), then `completed`, with an output file of one chat completion per input
//   line (usage from the line's model as openai-fake.ts reads it: tokens-<prompt>-<completion>, else 7 and 5).
//   A run created without streaming is `queued` and `completed` at its first retrieve; streamed, it
//   sends the whole event sequence of one assistant message ("fake answer from <model>").
// Errors are OpenAI's: 404 `No such File object: …`, `No assistant found with id '…'.` and so on.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

type Json = Record<string, unknown>;

/** The raw bytes of each request's body (multipart uploads are not UTF-8 text); set by the router. */
export const requestBytes = new WeakMap<IncomingMessage, Buffer>();

const files = new Map<string, { object: Json; content: Buffer }>();
const batches = new Map<string, { object: Json; createdMs: number; delayMs: number }>();
const vectorStores = new Map<string, { object: Json; files: Map<string, Json> }>();
const assistants = new Map<string, Json>();
const threads = new Map<string, { object: Json; messages: Json[]; runs: Map<string, Json> }>();
const uploads = new Map<string, { object: Json; parts: Map<string, Buffer> }>();

const RESOURCE_PATH = /^\/v1\/(files|batches|vector_stores|assistants|threads|uploads)(\/.*)?$/;

export function isResourcePath(path: string): boolean {
  return RESOURCE_PATH.test(path);
}

function id(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function send(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_fake_${Date.now()}` });
  res.end(JSON.stringify(body));
}

function error(res: ServerResponse, status: number, message: string, param: string | null = null, code: string | null = null): void {
  send(res, { error: { message, type: 'invalid_request_error', param, code } }, status);
}

function list(data: Json[], query: URLSearchParams): Json {
  const limit = Number(query.get('limit') ?? 20);
  const ordered = query.get('order') === 'asc' ? data : [...data].reverse();
  const after = query.get('after');
  const from = after ? ordered.findIndex((item) => item['id'] === after) + 1 : 0;
  const page = ordered.slice(from, from + limit);
  return { object: 'list', data: page, first_id: page[0]?.['id'] ?? null, last_id: page.at(-1)?.['id'] ?? null, has_more: from + limit < ordered.length };
}

export async function handleOpenAiResources(req: IncomingMessage, res: ServerResponse, body: string, rawPath: string): Promise<void> {
  if (req.headers.authorization === undefined || !req.headers.authorization.startsWith('Bearer ')) {
    error(res, 401, 'fake: you did not provide an API key', null, 'invalid_api_key');
    return;
  }
  const url = new URL(rawPath, 'http://fake');
  const [, collection, rest = ''] = RESOURCE_PATH.exec(url.pathname) ?? [];
  const segments = rest.split('/').filter(Boolean).map(decodeURIComponent);
  const method = req.method ?? 'GET';
  let json: Json = {};
  if (method === 'POST' && collection !== 'files' && !(collection === 'uploads' && rest.endsWith('/parts')) && body !== '') {
    try {
      json = JSON.parse(body) as Json;
    } catch {
      error(res, 400, 'fake: we could not parse the JSON body of your request');
      return;
    }
  }
  if (collection === 'files') return filesRoute(req, res, method, segments, url.searchParams);
  if (collection === 'uploads') return uploadsRoute(req, res, method, segments, json);
  if (collection === 'batches') return batchesRoute(res, method, segments, json, url.searchParams);
  if (collection === 'vector_stores') return vectorStoresRoute(res, method, segments, json, url.searchParams);
  if (collection === 'assistants') return assistantsRoute(res, method, segments, json, url.searchParams);
  return threadsRoute(res, method, segments, json, url.searchParams);
}

// Files

function filesRoute(req: IncomingMessage, res: ServerResponse, method: string, segments: string[], query: URLSearchParams): void {
  const [fileId, sub] = segments;
  if (fileId === undefined) {
    if (method === 'GET')
      return send(
        res,
        list(
          [...files.values()].map((file) => file.object),
          query,
        ),
      );
    if (method !== 'POST') return error(res, 404, `fake: unknown url ${method}`);
    const form = multipart(req);
    if (!form) return error(res, 400, 'fake: the request must be multipart/form-data', null);
    const file = form.files.get('file');
    const purpose = form.fields.get('purpose');
    if (!file) return error(res, 400, "Missing required parameter: 'file'.", 'file');
    if (!purpose) return error(res, 400, "Missing required parameter: 'purpose'.", 'purpose');
    const object = {
      id: id('file-'),
      object: 'file',
      bytes: file.content.length,
      created_at: now(),
      filename: file.filename,
      purpose,
      status: 'processed',
      expires_at: null,
      status_details: null,
    };
    files.set(object.id, { object, content: file.content });
    return send(res, object);
  }
  const file = files.get(fileId);
  if (!file) return error(res, 404, `No such File object: ${fileId}`, 'id');
  if (sub === 'content' && method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.content.length });
    res.end(file.content);
    return;
  }
  if (method === 'GET') return send(res, file.object);
  if (method === 'DELETE') {
    files.delete(fileId);
    return send(res, { id: fileId, object: 'file', deleted: true });
  }
  error(res, 404, `fake: unknown url ${method}`);
}

// Uploads

function uploadsRoute(req: IncomingMessage, res: ServerResponse, method: string, segments: string[], json: Json): void {
  const [uploadId, action] = segments;
  if (method !== 'POST') return error(res, 404, `fake: unknown url ${method}`);
  if (uploadId === undefined) {
    for (const field of ['filename', 'purpose', 'bytes', 'mime_type']) if (json[field] === undefined) return error(res, 400, `Missing required parameter: '${field}'.`, field);
    const created = now();
    const object: Json = {
      id: id('upload_'),
      object: 'upload',
      bytes: json['bytes'],
      created_at: created,
      filename: json['filename'],
      purpose: json['purpose'],
      status: 'pending',
      expires_at: created + 3600,
      file: null,
    };
    uploads.set(String(object['id']), { object, parts: new Map() });
    return send(res, object);
  }
  const upload = uploads.get(uploadId);
  if (!upload) return error(res, 404, `No such Upload object: ${uploadId}`, 'upload_id');
  if (action === 'parts') {
    const data = multipart(req)?.files.get('data');
    if (!data) return error(res, 400, "Missing required parameter: 'data'.", 'data');
    const part = { id: id('part_'), object: 'upload.part', created_at: now(), upload_id: uploadId };
    upload.parts.set(part.id, data.content);
    return send(res, part);
  }
  if (action === 'cancel') {
    upload.object = { ...upload.object, status: 'cancelled' };
    return send(res, upload.object);
  }
  if (action !== 'complete') return error(res, 404, `fake: unknown url ${method}`);
  const partIds = Array.isArray(json['part_ids']) ? (json['part_ids'] as unknown[]) : [];
  const unknown = partIds.find((partId) => !upload.parts.has(String(partId)));
  if (partIds.length === 0 || unknown !== undefined) return error(res, 400, `Invalid 'part_ids': '${String(unknown ?? '')}'.`, 'part_ids', 'invalid_value');
  const content = Buffer.concat(partIds.map((partId) => upload.parts.get(String(partId)) as Buffer));
  const file = {
    id: id('file-'),
    object: 'file',
    bytes: content.length,
    created_at: now(),
    filename: upload.object['filename'],
    purpose: upload.object['purpose'],
    status: 'processed',
    expires_at: null,
    status_details: null,
  };
  files.set(file.id, { object: file, content });
  upload.object = { ...upload.object, status: 'completed', file };
  send(res, upload.object);
}

interface Form {
  fields: Map<string, string>;
  files: Map<string, { filename: string; content: Buffer }>;
}

function multipart(req: IncomingMessage): Form | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(req.headers['content-type'] ?? '');
  const bytes = requestBytes.get(req);
  if (!boundary || !bytes) return undefined;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const form: Form = { fields: new Map(), files: new Map() };
  let at = bytes.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (bytes.subarray(start, start + 2).toString() === '--') break;
    const next = bytes.indexOf(delimiter, start);
    if (next < 0) return undefined;
    const part = bytes.subarray(start + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/.exec(headers)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(headers)?.[1];
    if (filename !== undefined) form.files.set(name, { filename, content: Buffer.from(content) });
    else form.fields.set(name, content.toString('utf8'));
    at = next;
  }
  return form;
}

// Batches

function batchesRoute(res: ServerResponse, method: string, segments: string[], json: Json, query: URLSearchParams): void {
  const [batchId, sub] = segments;
  if (batchId === undefined) {
    if (method === 'GET')
      return send(
        res,
        list(
          [...batches.values()].map((batch) => advance(batch)),
          query,
        ),
      );
    const input = files.get(String(json['input_file_id']));
    if (!input) return error(res, 400, `Invalid 'input_file_id': '${String(json['input_file_id'])}'. File not found.`, 'input_file_id', 'invalid_value');
    if (json['endpoint'] !== '/v1/chat/completions' && json['endpoint'] !== '/v1/embeddings' && json['endpoint'] !== '/v1/responses' && json['endpoint'] !== '/v1/completions') {
      return error(res, 400, "Invalid value for 'endpoint'.", 'endpoint', 'invalid_value');
    }
    const created = now();
    const metadata = (json['metadata'] as Json | undefined) ?? null;
    const object: Json = {
      id: id('batch_'),
      object: 'batch',
      endpoint: json['endpoint'],
      errors: null,
      input_file_id: json['input_file_id'],
      completion_window: json['completion_window'] ?? '24h',
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      created_at: created,
      in_progress_at: null,
      expires_at: created + 86_400,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
      request_counts: { total: 0, completed: 0, failed: 0 },
      metadata,
    };
    const delay = Number(metadata?.['fake_delay_ms'] ?? 200);
    batches.set(String(object['id']), { object, createdMs: Date.now(), delayMs: Number.isFinite(delay) ? delay : 200 });
    return send(res, object);
  }
  const batch = batches.get(batchId);
  if (!batch) return error(res, 404, `No batch found with id '${batchId}'.`, 'batch_id');
  if (sub === 'cancel' && method === 'POST') {
    const object = advance(batch);
    if (object['status'] === 'completed') return error(res, 409, `Cannot cancel a batch with status 'completed'.`, null);
    Object.assign(object, { status: 'cancelled', cancelling_at: now(), cancelled_at: now() });
    return send(res, object);
  }
  if (method === 'GET' && sub === undefined) return send(res, advance(batch));
  error(res, 404, `fake: unknown url ${method}`);
}

/** The batch as it stands now: once its delay passed, completed with an output file. */
function advance(batch: { object: Json; createdMs: number; delayMs: number }): Json {
  const object = batch.object;
  if (object['status'] !== 'validating' && object['status'] !== 'in_progress') return object;
  if (Date.now() - batch.createdMs < batch.delayMs) {
    Object.assign(object, { status: 'in_progress', in_progress_at: object['in_progress_at'] ?? now() });
    return object;
  }
  const input = files.get(String(object['input_file_id']));
  const lines = (input?.content.toString('utf8') ?? '').split('\n').filter((line) => line.trim() !== '');
  const output = lines.map((line, index) => {
    const request = JSON.parse(line) as { custom_id?: string; body?: { model?: string } };
    const model = String(request.body?.model ?? '');
    const tokens = /^tokens-(\d+)-(\d+)$/.exec(model);
    const prompt = tokens ? Number(tokens[1]) : 7;
    const completion = tokens ? Number(tokens[2]) : 5;
    const body = {
      id: `chatcmpl-fake${index}`,
      object: 'chat.completion',
      created: now(),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: `fake answer from ${model}`, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      system_fingerprint: 'fp_fake',
    };
    return JSON.stringify({ id: `batch_req_${index}`, custom_id: request.custom_id, response: { status_code: 200, request_id: `req_fake_${index}`, body }, error: null });
  });
  const content = Buffer.from(output.map((line) => `${line}\n`).join(''));
  const outputFile = {
    id: id('file-'),
    object: 'file',
    bytes: content.length,
    created_at: now(),
    filename: 'batch_output.jsonl',
    purpose: 'batch_output',
    status: 'processed',
    expires_at: null,
    status_details: null,
  };
  files.set(outputFile.id, { object: outputFile, content });
  Object.assign(object, {
    status: 'completed',
    output_file_id: outputFile.id,
    in_progress_at: object['in_progress_at'] ?? now(),
    finalizing_at: now(),
    completed_at: now(),
    request_counts: { total: lines.length, completed: lines.length, failed: 0 },
  });
  return object;
}

// Vector stores

function vectorStoresRoute(res: ServerResponse, method: string, segments: string[], json: Json, query: URLSearchParams): void {
  const [storeId, sub, fileId] = segments;
  if (storeId === undefined) {
    if (method === 'GET')
      return send(
        res,
        list(
          [...vectorStores.values()].map((store) => store.object),
          query,
        ),
      );
    const object: Json = {
      id: id('vs_'),
      object: 'vector_store',
      created_at: now(),
      name: json['name'] ?? null,
      usage_bytes: 0,
      bytes: 0,
      file_counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 },
      status: 'completed',
      expires_after: null,
      expires_at: null,
      last_active_at: now(),
      metadata: json['metadata'] ?? {},
    };
    const store = { object, files: new Map<string, Json>() };
    vectorStores.set(String(object['id']), store);
    for (const file of (json['file_ids'] as string[] | undefined) ?? []) addStoreFile(store, file);
    return send(res, object);
  }
  const store = vectorStores.get(storeId);
  if (!store) return error(res, 404, `No vector store found with id '${storeId}'.`, 'vector_store_id');
  if (sub === undefined) {
    if (method === 'GET') return send(res, store.object);
    if (method === 'POST')
      return send(res, Object.assign(store.object, json['name'] !== undefined ? { name: json['name'] } : {}, json['metadata'] !== undefined ? { metadata: json['metadata'] } : {}));
    vectorStores.delete(storeId);
    return send(res, { id: storeId, object: 'vector_store.deleted', deleted: true });
  }
  if (sub === 'files') {
    if (fileId === undefined && method === 'POST') {
      if (!files.has(String(json['file_id']))) return error(res, 404, `No file found with id '${String(json['file_id'])}'.`, 'file_id');
      return send(res, addStoreFile(store, String(json['file_id'])));
    }
    if (fileId === undefined) return send(res, list([...store.files.values()], query));
    const file = store.files.get(fileId);
    if (!file) return error(res, 404, `No file found with id '${fileId}' in vector store '${storeId}'.`, 'file_id');
    if (method === 'DELETE') {
      store.files.delete(fileId);
      return send(res, { id: fileId, object: 'vector_store.file.deleted', deleted: true });
    }
    return send(res, file);
  }
  if (sub === 'search' && method === 'POST') {
    const queryText = String(json['query'] ?? '');
    const data = [...store.files.keys()].map((file, index) => ({
      file_id: file,
      filename: String(files.get(file)?.object['filename'] ?? 'file'),
      score: 0.9 - index * 0.1,
      attributes: {},
      content: [{ type: 'text', text: (files.get(file)?.content.toString('utf8') ?? '').slice(0, 200) }],
    }));
    return send(res, { object: 'vector_store.search_results.page', search_query: [queryText], data, has_more: false, next_page: null });
  }
  error(res, 404, `fake: unknown url ${method}`);
}

function addStoreFile(store: { object: Json; files: Map<string, Json> }, fileId: string): Json {
  const object: Json = {
    id: fileId,
    object: 'vector_store.file',
    created_at: now(),
    usage_bytes: files.get(fileId)?.content.length ?? 0,
    vector_store_id: store.object['id'],
    status: 'completed',
    last_error: null,
    chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } },
    attributes: {},
  };
  store.files.set(fileId, object);
  const counts = store.object['file_counts'] as Record<string, number>;
  counts['completed'] = store.files.size;
  counts['total'] = store.files.size;
  return object;
}

// Assistants

function assistantsRoute(res: ServerResponse, method: string, segments: string[], json: Json, query: URLSearchParams): void {
  const [assistantId] = segments;
  if (assistantId === undefined) {
    if (method === 'GET') return send(res, list([...assistants.values()], query));
    if (typeof json['model'] !== 'string') return error(res, 400, "Missing required parameter: 'model'.", 'model');
    const object: Json = {
      id: id('asst_'),
      object: 'assistant',
      created_at: now(),
      name: json['name'] ?? null,
      description: json['description'] ?? null,
      model: json['model'],
      instructions: json['instructions'] ?? null,
      tools: json['tools'] ?? [],
      tool_resources: json['tool_resources'] ?? {},
      metadata: json['metadata'] ?? {},
      top_p: 1.0,
      temperature: 1.0,
      response_format: 'auto',
    };
    assistants.set(String(object['id']), object);
    return send(res, object);
  }
  const assistant = assistants.get(assistantId);
  if (!assistant) return error(res, 404, `No assistant found with id '${assistantId}'.`, null);
  if (method === 'GET') return send(res, assistant);
  if (method === 'POST') return send(res, Object.assign(assistant, json));
  assistants.delete(assistantId);
  send(res, { id: assistantId, object: 'assistant.deleted', deleted: true });
}

// Threads, messages, runs

function threadsRoute(res: ServerResponse, method: string, segments: string[], json: Json, query: URLSearchParams): void {
  const [threadId, sub, subId, action] = segments;
  if (threadId === undefined && method === 'POST') return send(res, newThread(json).object);
  if (threadId === 'runs' && method === 'POST') {
    const thread = newThread((json['thread'] as Json | undefined) ?? {});
    return startRun(res, thread, json);
  }
  const thread = threadId === undefined ? undefined : threads.get(threadId);
  if (!thread) return error(res, 404, `No thread found with id '${threadId ?? ''}'.`, null);
  if (sub === undefined) {
    if (method === 'GET') return send(res, thread.object);
    if (method === 'POST') return send(res, Object.assign(thread.object, json['metadata'] !== undefined ? { metadata: json['metadata'] } : {}));
    threads.delete(String(thread.object['id']));
    return send(res, { id: thread.object['id'], object: 'thread.deleted', deleted: true });
  }
  if (sub === 'messages') {
    if (subId === undefined && method === 'POST') return send(res, addMessage(thread, 'user', textOf(json['content']), null, null, json));
    if (subId === undefined) return send(res, list(thread.messages, query));
    const message = thread.messages.find((item) => item['id'] === subId);
    return message ? send(res, message) : error(res, 404, `No message found with id '${subId}'.`, null);
  }
  if (sub === 'runs') {
    if (subId === undefined && method === 'POST') return startRun(res, thread, json);
    if (subId === undefined) return send(res, list([...thread.runs.values()], query));
    const run = thread.runs.get(subId);
    if (!run) return error(res, 404, `No run found with id '${subId}'.`, null);
    if (action === 'cancel' && method === 'POST') return send(res, Object.assign(run, { status: 'cancelled', cancelled_at: now() }));
    if (run['status'] === 'queued') complete(thread, run);
    return send(res, run);
  }
  error(res, 404, `fake: unknown url ${method}`);
}

function newThread(json: Json): { object: Json; messages: Json[]; runs: Map<string, Json> } {
  const object: Json = { id: id('thread_'), object: 'thread', created_at: now(), metadata: json['metadata'] ?? {}, tool_resources: json['tool_resources'] ?? {} };
  const thread = { object, messages: [] as Json[], runs: new Map<string, Json>() };
  threads.set(String(object['id']), thread);
  for (const message of (json['messages'] as Json[] | undefined) ?? []) addMessage(thread, 'user', textOf(message['content']), null, null, message);
  return thread;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => String((part as Json)['text'] ?? '')).join('');
  return '';
}

function addMessage(thread: { object: Json; messages: Json[] }, role: string, text: string, assistantId: string | null, runId: string | null, json: Json = {}): Json {
  const message: Json = {
    id: id('msg_'),
    object: 'thread.message',
    created_at: now(),
    assistant_id: assistantId,
    thread_id: thread.object['id'],
    run_id: runId,
    role,
    content: [{ type: 'text', text: { value: text, annotations: [] } }],
    attachments: json['attachments'] ?? [],
    metadata: json['metadata'] ?? {},
    status: 'completed',
    incomplete_details: null,
    completed_at: now(),
    incomplete_at: null,
  };
  thread.messages.push(message);
  return message;
}

function startRun(res: ServerResponse, thread: { object: Json; messages: Json[]; runs: Map<string, Json> }, json: Json): void {
  const assistant = assistants.get(String(json['assistant_id']));
  if (!assistant) return error(res, 404, `No assistant found with id '${String(json['assistant_id'])}'.`, null);
  const run: Json = {
    id: id('run_'),
    object: 'thread.run',
    created_at: now(),
    assistant_id: assistant['id'],
    thread_id: thread.object['id'],
    status: 'queued',
    started_at: null,
    expires_at: now() + 600,
    cancelled_at: null,
    failed_at: null,
    completed_at: null,
    required_action: null,
    last_error: null,
    model: json['model'] ?? assistant['model'],
    instructions: json['instructions'] ?? assistant['instructions'],
    tools: assistant['tools'],
    metadata: json['metadata'] ?? {},
    usage: null,
    temperature: 1.0,
    top_p: 1.0,
    max_prompt_tokens: null,
    max_completion_tokens: null,
    truncation_strategy: { type: 'auto', last_messages: null },
    incomplete_details: null,
    response_format: 'auto',
    tool_choice: 'auto',
    parallel_tool_calls: true,
  };
  thread.runs.set(String(run['id']), run);
  if (json['stream'] !== true) return send(res, run);
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const event = (name: string, data: unknown) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  event('thread.run.created', { ...run });
  event('thread.run.queued', { ...run });
  Object.assign(run, { status: 'in_progress', started_at: now() });
  event('thread.run.in_progress', { ...run });
  const text = `fake answer from ${String(run['model'])}`;
  const message = { ...addMessage(thread, 'assistant', text, String(assistant['id']), String(run['id'])) };
  const step: Json = {
    id: id('step_'),
    object: 'thread.run.step',
    created_at: now(),
    run_id: run['id'],
    assistant_id: assistant['id'],
    thread_id: thread.object['id'],
    type: 'message_creation',
    status: 'in_progress',
    cancelled_at: null,
    completed_at: null,
    expires_at: run['expires_at'],
    failed_at: null,
    last_error: null,
    step_details: { type: 'message_creation', message_creation: { message_id: message['id'] } },
    usage: null,
  };
  event('thread.run.step.created', step);
  event('thread.run.step.in_progress', step);
  const empty = { ...message, status: 'in_progress', content: [], completed_at: null };
  event('thread.message.created', empty);
  event('thread.message.in_progress', empty);
  for (const [index, piece] of [text.slice(0, 4), text.slice(4)].entries()) {
    event('thread.message.delta', { id: message['id'], object: 'thread.message.delta', delta: { content: [{ index: 0, type: 'text', text: { value: piece, annotations: [] } }] } });
    void index;
  }
  event('thread.message.completed', message);
  complete(thread, run, false);
  event('thread.run.step.completed', { ...step, status: 'completed', completed_at: now(), usage: run['usage'] });
  event('thread.run.completed', { ...run });
  res.end('event: done\ndata: [DONE]\n\n');
}

function complete(thread: { object: Json; messages: Json[] }, run: Json, addAnswer = true): void {
  if (addAnswer) addMessage(thread, 'assistant', `fake answer from ${String(run['model'])}`, String(run['assistant_id']), String(run['id']));
  Object.assign(run, { status: 'completed', started_at: run['started_at'] ?? now(), completed_at: now(), usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } });
}
