// OpenAI's Realtime API (WebSocket) as api.openai.com (`/openai/v1/realtime?model=…`, or at the
// root) and Azure OpenAI (`/azure/openai/realtime?api-version=…&deployment=…`) serve it: the key
// checked at the handshake (Bearer, or Azure's api-key; a refusal is an HTTP 401 in OpenAI's
// envelope), `session.created` first, then per client event:
//   session.update → session.updated; conversation.item.create → conversation.item.added and
//   conversation.item.done; response.create → response.created, response.output_item.added,
//   conversation.item.added, response.content_part.added, response.output_text.delta (a word
//   each), response.output_text.done, response.content_part.done, response.output_item.done,
//   conversation.item.done and response.done with the response's usage; anything else → an
//   `error` event (invalid_request_error), as OpenAI answers an unknown event.
// Usage of the n-th response: input 20 text + 10 audio tokens (from the second response on, 16
// of the text cached), output 5 text + 15 audio tokens. A model named `close-after-1` closes the
// session (1000) after its first response.done.
// The handshake is recorded like an HTTP request (GET, path, headers); each client event is
// appended to its `body` as a line; `aborted` turns true when the caller closes the session.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { SeenRequest } from './openai-fake.ts';

const wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => (protocols.has('realtime') ? 'realtime' : false) });
const OPENAI_PATHS = new Set(['/openai/v1/realtime', '/v1/realtime']);
const AZURE_PATH = '/azure/openai/realtime';

let counter = 0;
const nextId = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(counter++).toString(36)}`;

function refuse(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
  socket.end(`HTTP/1.1 ${status} Error\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

/** The server's `upgrade` listener: realtime sessions on their paths, a 404 for any other. */
export function handleRealtimeUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, seen: SeenRequest[]): void {
  const url = new URL(req.url ?? '/', 'http://fake');
  const azure = url.pathname === AZURE_PATH;
  if (!azure && !OPENAI_PATHS.has(url.pathname)) return refuse(socket, 404, 'unknown_url', `fake: no WebSocket at ${url.pathname}`);
  const record: SeenRequest = { method: 'GET', path: req.url ?? '', headers: req.headers, body: '', aborted: false };
  seen.push(record);
  const keyed = azure ? typeof req.headers['api-key'] === 'string' : /^Bearer \S+/.test(req.headers.authorization ?? '');
  if (!keyed) return refuse(socket, 401, 'invalid_api_key', 'fake: you did not provide an API key');
  const model = azure ? url.searchParams.get('deployment') : url.searchParams.get('model');
  if (!model) return refuse(socket, 400, 'missing_model', 'fake: model is required');
  if (azure && !url.searchParams.get('api-version')) return refuse(socket, 400, 'missing_api_version', 'fake: api-version is required');
  wss.handleUpgrade(req, socket, head, (ws) => serveSession(ws, model, record));
}

function serveSession(ws: WebSocket, model: string, record: SeenRequest): void {
  let closedByFake = false;
  let responses = 0;
  let session: Record<string, unknown> = {
    type: 'realtime',
    object: 'realtime.session',
    id: nextId('sess'),
    model,
    output_modalities: ['audio'],
    instructions: '',
    tools: [],
    tool_choice: 'auto',
    max_output_tokens: 'inf',
    audio: { output: { voice: 'alloy' } },
  };
  let lastItem: string | null = null;
  const send = (event: Record<string, unknown>) => ws.send(JSON.stringify({ event_id: nextId('event'), ...event }));
  ws.on('close', () => {
    if (!closedByFake) record.aborted = true;
  });
  send({ type: 'session.created', session });
  ws.on('message', (data: RawData, isBinary: boolean) => {
    const text = data.toString();
    record.body += `${text}\n`;
    let event: { type?: unknown; event_id?: unknown; session?: unknown; item?: Record<string, unknown> };
    try {
      if (isBinary) throw new Error('binary');
      event = JSON.parse(text) as typeof event;
    } catch {
      return send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_json', message: 'fake: the event is not JSON', param: null, event_id: null } });
    }
    if (event.type === 'session.update' && typeof event.session === 'object' && event.session !== null) {
      session = { ...session, ...(event.session as Record<string, unknown>) };
      return send({ type: 'session.updated', session });
    }
    if (event.type === 'conversation.item.create' && event.item) {
      const item = { id: nextId('item'), object: 'realtime.item', status: 'completed', ...event.item };
      send({ type: 'conversation.item.added', previous_item_id: lastItem, item });
      send({ type: 'conversation.item.done', previous_item_id: lastItem, item });
      lastItem = item.id as string;
      return;
    }
    if (event.type === 'response.create') {
      responses++;
      respond(send, model, responses, lastItem);
      if (model === 'close-after-1') {
        closedByFake = true;
        ws.close(1000, 'fake: session over');
      }
      return;
    }
    send({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        code: 'invalid_value',
        message: `fake: Invalid value: '${String(event.type)}'. Supported values are: 'session.update', 'conversation.item.create', 'response.create'.`,
        param: 'type',
        event_id: event.event_id ?? null,
      },
    });
  });
}

function respond(send: (event: Record<string, unknown>) => void, model: string, n: number, previousItem: string | null): void {
  const responseId = nextId('resp');
  const itemId = nextId('item');
  const text = `fake realtime answer ${n} from ${model}`;
  const ids = { response_id: responseId, item_id: itemId, output_index: 0 };
  const cached = n > 1 ? 16 : 0;
  const usage = {
    total_tokens: 50,
    input_tokens: 30,
    output_tokens: 20,
    input_token_details: {
      text_tokens: 20,
      audio_tokens: 10,
      image_tokens: 0,
      cached_tokens: cached,
      cached_tokens_details: { text_tokens: cached, audio_tokens: 0, image_tokens: 0 },
    },
    output_token_details: { text_tokens: 5, audio_tokens: 15 },
  };
  const pending = { id: itemId, object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  const done = { ...pending, status: 'completed', content: [{ type: 'output_text', text }] };
  const response = (status: string, output: unknown[], withUsage: boolean) => ({
    id: responseId,
    object: 'realtime.response',
    status,
    status_details: null,
    output,
    conversation_id: 'conv_fake',
    output_modalities: ['text'],
    max_output_tokens: 'inf',
    audio: { output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy' } },
    usage: withUsage ? usage : null,
    metadata: null,
  });
  send({ type: 'response.created', response: response('in_progress', [], false) });
  send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item: pending });
  send({ type: 'conversation.item.added', previous_item_id: previousItem, item: pending });
  send({ type: 'response.content_part.added', ...ids, content_index: 0, part: { type: 'text', text: '' } });
  for (const word of text.split(' ')) send({ type: 'response.output_text.delta', ...ids, content_index: 0, delta: `${word} ` });
  send({ type: 'response.output_text.done', ...ids, content_index: 0, text });
  send({ type: 'response.content_part.done', ...ids, content_index: 0, part: { type: 'text', text } });
  send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: done });
  send({ type: 'conversation.item.done', previous_item_id: previousItem, item: done });
  send({ type: 'response.done', response: response('completed', [done], true) });
}

/**
 * WebRTC session creation at OpenAI: POST /v1/realtime/client_secrets ({session: {type, model}},
 * answered {value, expires_at, session}) and the beta POST /v1/realtime/sessions ({model},
 * answered as the session with its client_secret). True when it answered.
 */
export function handleRealtimeSessions(req: IncomingMessage, res: ServerResponse, body: string, path: string): boolean {
  if (req.method !== 'POST' || (path !== '/v1/realtime/client_secrets' && path !== '/v1/realtime/sessions')) return false;
  const reply = (status: number, answer: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_fake_${Date.now()}` });
    res.end(JSON.stringify(answer));
  };
  if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) {
    reply(401, { error: { message: 'fake: you did not provide an API key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    return true;
  }
  let request: { model?: unknown; session?: { model?: unknown } };
  try {
    request = JSON.parse(body) as typeof request;
  } catch {
    reply(400, { error: { message: 'fake: we could not parse the JSON body of your request', type: 'invalid_request_error', param: null, code: null } });
    return true;
  }
  const model = path.endsWith('client_secrets') ? request.session?.model : request.model;
  if (typeof model !== 'string') {
    reply(400, { error: { message: "fake: Missing required parameter: 'model'.", type: 'invalid_request_error', param: 'model', code: 'missing_required_parameter' } });
    return true;
  }
  const secret = { value: `ek_fake${Date.now().toString(36)}`, expires_at: Math.floor(Date.now() / 1000) + 60 };
  const session = { type: 'realtime', object: 'realtime.session', id: nextId('sess'), model, output_modalities: ['audio'] };
  reply(200, path.endsWith('client_secrets') ? { ...secret, session } : { ...session, client_secret: secret });
  return true;
}
