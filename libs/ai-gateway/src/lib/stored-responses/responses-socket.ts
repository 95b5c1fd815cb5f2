import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { answerOnSocket, UpgradeRoutes } from '@arbor/platform';
import { errorFields } from '@arbor/observability';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { CallSink } from '../calls/collected-answer';
import { OPENAI_RESPONSES } from '../endpoints/openai-responses/openai-responses.codec';
import { openAiError } from '../gateway-errors';
import { GatewayAuthentication } from '../gateway-key.guard';
import type { GatewayCaller } from '../keys/key-verifier';
import { ConnectionMemory, ResponsesMemory } from './responses-memory';
import { ObjectReferences } from '../resources/object-references';

const PATH = /^(?:\/v1)?\/responses$/;
// A response.create message carries a whole conversation's input at most as an HTTP body would.
const MAX_MESSAGE_BYTES = 100 * 1024 * 1024;

/** An error event as OpenAI's WebSocket mode sends one. */
function errorEvent(error: unknown): string {
  const failure = openAiError(error);
  const body = failure.toBody() as { error: Record<string, unknown> };
  return JSON.stringify({ type: 'error', status: failure.status, error: body.error });
}

/**
 * The Responses API's WebSocket mode on `/v1/responses`, as OpenAI serves it: the key is checked
 * at the upgrade; each `response.create` message is one turn, answered by the turn's stream events
 * as messages, through the same pipeline as HTTP (keys, limits, routing, cost, spend, storage); a
 * turn may continue any stored response, or one of this connection's own created with
 * `store: false`. One turn at a time on a connection.
 */
@Injectable()
export class ResponsesSocket implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ai-gateway');
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  constructor(
    private readonly upgrades: UpgradeRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly memory: ResponsesMemory,
    private readonly references: ObjectReferences,
  ) {}

  onModuleInit(): void {
    this.upgrades.add({
      route: '/v1/responses',
      paths: ['/v1/responses', '/responses'],
      matches: (path) => PATH.test(path),
      handle: (request, socket, head) => this.upgrade(request, socket, head),
    });
  }

  async onModuleDestroy(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    let caller: GatewayCaller;
    try {
      caller = await this.authentication.caller(request);
    } catch (error) {
      const failure = openAiError(error);
      return answerOnSocket(socket, failure.status, failure.toBody(), failure.headers);
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.serve(ws, caller, request));
  }

  private serve(ws: WebSocket, caller: GatewayCaller, request: IncomingMessage): void {
    const connection = new ConnectionMemory();
    let turn: SocketTurn | undefined;
    ws.on('close', () => turn?.abandon());
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const event = parseEvent(data, isBinary);
      if (typeof event === 'string') return ws.send(event);
      if (turn) return ws.send(refusal('conversation_busy', 'A response is still in progress on this connection; send the next response.create after its last event.'));
      const { type: _type, stream_id: _lane, background, ...create } = event;
      if (background === true) return ws.send(refusal('background_not_supported', 'background is not supported over WebSocket; use POST /v1/responses.', 'background'));
      const current = new SocketTurn(ws);
      turn = current;
      // As over HTTP (CallRoutes): a conversation, file or store named by the upstream's id must be the caller's project's.
      this.references
        .checkModelCall(caller, create)
        .then(() => this.memory.handle(OPENAI_RESPONSES, caller, { ...create, stream: true }, request, current, connection))
        .catch((error: unknown) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(errorEvent(error));
        })
        .catch((error: unknown) => this.logger.warn('a WebSocket turn failed', { err: errorFields(error) }))
        .finally(() => {
          current.abandon();
          turn = undefined;
        });
    });
  }
}

/** A message as a response.create event, or the error event that answers it. */
function parseEvent(data: RawData, isBinary: boolean): Record<string, unknown> | string {
  if (isBinary) return refusal('invalid_event', 'Messages must be JSON text.');
  let event: unknown;
  try {
    event = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
  } catch {
    return refusal('invalid_json', 'The message is not JSON.');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return refusal('invalid_event', 'The message must be a JSON object.');
  const type = (event as { type?: unknown }).type;
  if (type !== 'response.create') return refusal('unknown_event', `Unknown event type ${JSON.stringify(type)}: this gateway takes response.create.`, 'type');
  return event as Record<string, unknown>;
}

function refusal(code: string, message: string, param: string | null = null): string {
  return JSON.stringify({ type: 'error', status: 400, error: { type: 'invalid_request_error', code, message, param } });
}

/**
 * One turn's answer on the socket: each Server-Sent Event of the stream sent as one message (its
 * data, as the upstream or the bridge wrote it); an error answer sent as an error event.
 */
class SocketTurn extends CallSink {
  private errorBody = '';

  constructor(private readonly ws: WebSocket) {
    super();
  }

  write(chunk: string | Buffer): boolean {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (this.status !== 200) {
      this.errorBody += text;
      return true;
    }
    for (const match of text.matchAll(/^data: ?(.*)$/gm)) if (this.ws.readyState === WebSocket.OPEN) this.ws.send(match[1] ?? '');
    return true;
  }

  protected override ended(): void {
    if (this.status !== 200 && this.ws.readyState === WebSocket.OPEN) this.ws.send(errorFrom(this.status, this.errorBody));
  }
}

function errorFrom(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return JSON.stringify({ type: 'error', status, error: parsed.error });
  } catch {
    return JSON.stringify({ type: 'error', status, error: { type: 'server_error', code: null, message: 'The response failed.', param: null } });
  }
}
