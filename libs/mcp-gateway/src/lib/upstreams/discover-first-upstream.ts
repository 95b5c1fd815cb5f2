import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import type { UpstreamAnswer, UpstreamBody, UpstreamClient } from '@arbor/platform';
import { ClientCapabilities, ErrorCode, Implementation, JSONRPCMessage, McpError, RequestId, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, NAME_SOURCE, PROTOCOL_VERSION_KEY, SERVER_INFO_KEY } from '../protocol/envelope';
import { encodeHeaderValue, ParamHeaderDeclaration, paramHeaderDeclarations, paramHeaders } from '../protocol/param-headers';
import { DISCOVER_FIRST_PROTOCOL_VERSIONS } from '../protocol/protocol-versions';
import { mediaType, readText, UpstreamConnectionError, upstreamClientFor } from './upstream-http';
import type { RawCallOptions, RawResponse, UpstreamTraits, UpstreamTransport } from './upstream-transport';

export const DISCOVER_FIRST_VERSION = DISCOVER_FIRST_PROTOCOL_VERSIONS[0];
const MAX_INPUT_ROUNDS = 8;
/** Its calls go outside the SDK Protocol when the caller wants their own stream (log messages asked for by level). */
const TRAITS: UpstreamTraits = {
  ownCallStreams: true,
  directCallsWithoutProgress: false,
  perCallHeaders: false,
  // Only to a request naming its log level: a caller of the older versions names none.
  logsPerCall: false,
  takesEnvelope: true,
  sessionIsStream: false,
};

/** What `server/discover` told the gateway about a discover-first upstream. */
export interface Discovered {
  capabilities: ServerCapabilities;
  serverInfo?: Implementation;
  instructions?: string;
}

type Json = Record<string, unknown>;

/**
 * Whether the upstream speaks the 2026-07-28 revision: a `server/discover` naming it, as the
 * revision's backward-compatibility section has a dual-era client probe. Anything else (a 4xx of
 * an older server, a body that is no DiscoverResult) is an upstream of the older versions; a
 * connection that fails is an error, as an `initialize` would have been.
 */
export async function probeDiscoverFirst(url: URL, headers: Readonly<Record<string, string>>, allowLinkLocal: boolean, timeoutMs: number): Promise<Discovered | undefined> {
  const exchange = new DiscoverFirstExchange(url, headers, allowLinkLocal);
  const body = { id: 'arbor-discover', method: 'server/discover', params: { _meta: envelope({}, GATEWAY_INFO) } };
  const signal = AbortSignal.timeout(timeoutMs);
  const answer = await exchange
    .post(body, signal, () => undefined)
    .catch((error: unknown) => {
      if (error instanceof NotDiscoverFirst) return undefined;
      throw error;
    });
  const result = answer?.['result'] as Json | undefined;
  const versions = result?.['supportedVersions'];
  if (!Array.isArray(versions) || !versions.includes(DISCOVER_FIRST_VERSION)) return undefined;
  const meta = result?.['_meta'] as Json | undefined;
  return {
    capabilities: (result?.['capabilities'] ?? {}) as ServerCapabilities,
    ...(meta?.[SERVER_INFO_KEY] ? { serverInfo: meta[SERVER_INFO_KEY] as Implementation } : {}),
    ...(typeof result?.['instructions'] === 'string' ? { instructions: result['instructions'] } : {}),
  };
}

const GATEWAY_INFO: Implementation = { name: 'arbor-mcp-gateway', version: '1.0.0' };

/**
 * The gateway's SDK client (of the older versions) talking to an upstream of the 2026-07-28
 * revision: `initialize` is answered here from what `server/discover` said, each request goes in
 * its own POST with the revision's `_meta` envelope and headers, `ping` becomes a
 * `server/discover` round trip, a `notifications/cancelled` closes the request's stream, and list
 * changes arrive on a `subscriptions/listen` stream, and so do the updates of the resources the
 * client subscribes to (`resources/subscribe` and `resources/unsubscribe` reopen that stream with the
 * URIs it names, answered when the upstream acknowledges them). An `input_required` answer is turned into the
 * sampling or elicitation requests the older versions send the client, and the call is retried
 * with the answers — unless the request came from a client of the revision itself (its envelope
 * in `_meta`), which gets the upstream's InputRequiredResult to answer on its own.
 */
export class DiscoverFirstUpstreamTransport implements UpstreamTransport {
  readonly kind = 'discover-first';
  readonly traits = TRAITS;
  readonly discoveredVersion = DISCOVER_FIRST_VERSION;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private readonly exchange: DiscoverFirstExchange;
  /** The `x-mcp-header` declarations of the upstream's tools, as its tools/list answers give them (any session of it). */
  private readonly declarations: Map<string, readonly ParamHeaderDeclaration[]>;
  private capabilities: ClientCapabilities = {};
  private clientInfo: Implementation = GATEWAY_INFO;
  private readonly inflight = new Map<RequestId, AbortController>();
  private readonly awaitingInput = new Map<RequestId, { resolve(result: unknown): void; reject(error: Error): void }>();
  private listening?: AbortController;
  /** The listen stream whose notifications reach the client: the newest one acknowledged. */
  private delivering?: AbortController;
  /** The resources the client subscribed to, as the upstream names them: the listen stream's `resourceSubscriptions`. */
  private readonly subscribed = new Set<string>();
  /** Reopenings of the listen stream, one at a time, each with the filter of its moment. */
  private relistening: Promise<unknown> = Promise.resolve();
  private nextInputId = 0;
  private nextRawId = 0;
  private closed = false;

  constructor(
    url: URL,
    headers: Readonly<Record<string, string>>,
    allowLinkLocal: boolean,
    private readonly discovered: Discovered,
  ) {
    this.exchange = new DiscoverFirstExchange(url, headers, allowLinkLocal);
    this.declarations = declarationsOf(url);
  }

  async start(): Promise<void> {
    // Nothing to open: every request is a POST of its own.
  }

  async endSession(): Promise<void> {
    // No session upstream: the revision is stateless, closing the listen stream is all there is.
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message) return void this.request(message as unknown as { id: RequestId; method: string; params?: Json });
    if ('method' in message) {
      if (message.method === 'notifications/cancelled') this.inflight.get((message.params as { requestId: RequestId }).requestId)?.abort();
      return;
    }
    // The client's answer to a sampling or elicitation request made of an input_required result.
    const waiting = this.awaitingInput.get(message.id as RequestId);
    if (!waiting) return;
    this.awaitingInput.delete(message.id as RequestId);
    if ('result' in message) waiting.resolve(message.result);
    else waiting.reject(new McpError(message.error.code, message.error.message, message.error.data));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listening?.abort();
    for (const controller of this.inflight.values()) controller.abort();
    for (const waiting of this.awaitingInput.values()) waiting.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    this.awaitingInput.clear();
    this.onclose?.();
  }

  private async request(message: { id: RequestId; method: string; params?: Json }): Promise<void> {
    const { id, method } = message;
    const params = message.params ?? {};
    if (method === 'initialize') {
      this.capabilities = (params['capabilities'] ?? {}) as ClientCapabilities;
      this.clientInfo = (params['clientInfo'] ?? GATEWAY_INFO) as Implementation;
      void this.relisten();
      const { capabilities, serverInfo, instructions } = this.discovered;
      const result = {
        protocolVersion: params['protocolVersion'],
        capabilities,
        serverInfo: serverInfo ?? { name: 'upstream', version: DISCOVER_FIRST_VERSION },
        ...(instructions ? { instructions } : {}),
      };
      return this.deliver({ jsonrpc: '2.0', id, result } as JSONRPCMessage);
    }
    if (method === 'resources/subscribe' || method === 'resources/unsubscribe') return this.subscription(id, method, params);
    const controller = new AbortController();
    this.inflight.set(id, controller);
    try {
      const result =
        method === 'ping' ? await this.rounds(id, 'server/discover', {}, controller.signal).then(() => ({})) : await this.rounds(id, method, params, controller.signal);
      if (method === 'tools/list') this.learn(result);
      this.deliver({ jsonrpc: '2.0', id, result } as JSONRPCMessage);
    } catch (error) {
      if (controller.signal.aborted || this.closed) return;
      const { code, message: text, data } = error instanceof McpError ? error : new McpError(ErrorCode.InternalError, 'Upstream call failed');
      if (!(error instanceof McpError)) this.onerror?.(error as Error);
      this.deliver({
        jsonrpc: '2.0',
        id,
        error: { code, message: error instanceof UpstreamRefusal ? error.upstreamMessage : text, ...(data !== undefined ? { data } : {}) },
      } as JSONRPCMessage);
    } finally {
      this.inflight.delete(id);
    }
  }

  /** One request, in as many rounds as the upstream asks input for. */
  /**
   * One request outside the SDK Protocol, as StreamableHttpUpstreamTransport.call: its answer
   * raw, and the notifications on its own stream (log messages, progress) to `onnotification`
   * rather than to the session, so a caller sharing the pool's session gets its own.
   */
  async call(method: string, params: unknown, { signal, timeoutMs, onnotification }: RawCallOptions): Promise<RawResponse> {
    const id = `arbor-raw-${this.nextRawId++}`;
    const controller = new AbortController();
    const abort = () => controller.abort(signal?.reason);
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    const expire = () => controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }));
    let timer = setTimeout(expire, timeoutMs);
    const notified = (message: Json) => {
      // Progress restarts the timeout, as the SDK's resetTimeoutOnProgress.
      if (message['method'] === 'notifications/progress') {
        clearTimeout(timer);
        timer = setTimeout(expire, timeoutMs);
      }
      onnotification?.(message as { method: string; params?: Record<string, unknown> });
    };
    try {
      const result = await this.rounds(id, method, (params ?? {}) as Json, controller.signal, onnotification ? notified : undefined);
      return { id, result };
    } catch (error) {
      if (controller.signal.aborted) throw controller.signal.reason;
      if (error instanceof UpstreamRefusal) return { id, error: { code: error.code, message: error.upstreamMessage, ...(error.data !== undefined ? { data: error.data } : {}) } };
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    }
  }

  private async rounds(id: RequestId, method: string, params: Json, signal: AbortSignal, onNotification?: (message: Json) => void): Promise<Json> {
    const meta = (params['_meta'] ?? {}) as Json;
    // A client of the revision answers input requests itself: its envelope travels as it is.
    const discoverFirstClient = PROTOCOL_VERSION_KEY in meta;
    let round: Json = { ...params, _meta: discoverFirstClient ? meta : envelope(meta, this.clientInfo, this.capabilities) };
    for (let rounds = 0; rounds < MAX_INPUT_ROUNDS; rounds++) {
      const declared = method === 'tools/call' && typeof params['name'] === 'string' ? this.declarations.get(params['name']) : undefined;
      const mirrored = declared ? paramHeaders(declared, params['arguments']) : {};
      const answer = await this.exchange.post({ id, method, params: round }, signal, onNotification ?? ((notification) => this.deliver(notification)), mirrored);
      if ('error' in answer) {
        const error = answer['error'] as { code: number; message: string; data?: unknown };
        throw new UpstreamRefusal(error.code, error.message, error.data);
      }
      const result = (answer['result'] ?? {}) as Json;
      if (result['resultType'] !== 'input_required' || discoverFirstClient) return discoverFirstClient ? result : withoutResultType(result);
      const inputResponses = await this.answerInputs((result['inputRequests'] ?? {}) as Record<string, { method: string; params?: Json }>, signal);
      round = { ...round, inputResponses, ...(typeof result['requestState'] === 'string' ? { requestState: result['requestState'] } : {}) };
    }
    throw new McpError(ErrorCode.InternalError, `The upstream asked for input more than ${MAX_INPUT_ROUNDS} times`);
  }

  /** Asks the client (through the SDK client's handlers) what the upstream needs, all at once. */
  private async answerInputs(requests: Record<string, { method: string; params?: Json }>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const answers = await Promise.all(
      Object.entries(requests).map(async ([key, request]) => {
        const id = `arbor-input-${this.nextInputId++}`;
        const answered = new Promise<unknown>((resolve, reject) => {
          this.awaitingInput.set(id, { resolve, reject });
          signal.addEventListener('abort', () => reject(new McpError(ErrorCode.ConnectionClosed, 'Cancelled')), { once: true });
        });
        this.deliver({ jsonrpc: '2.0', id, method: request.method, params: request.params ?? {} } as JSONRPCMessage);
        return [key, await answered] as const;
      }),
    );
    return Object.fromEntries(answers);
  }

  /**
   * The older versions' `resources/subscribe` and `resources/unsubscribe`, which the revision
   * replaced by the `resourceSubscriptions` of a listen stream: the stream is reopened with the
   * URIs the client holds now, and a subscription is answered `{}` once the upstream acknowledged
   * its URI (as the older versions' upstream would have answered it).
   */
  private async subscription(id: RequestId, method: 'resources/subscribe' | 'resources/unsubscribe', params: Json): Promise<void> {
    const uri = params['uri'];
    const refuse = (code: number, message: string) => this.deliver({ jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage);
    if (this.discovered.capabilities.resources?.subscribe !== true) return refuse(ErrorCode.MethodNotFound, 'Method not found');
    if (typeof uri !== 'string') return refuse(ErrorCode.InvalidParams, 'Invalid params: uri must be a string');
    if (method === 'resources/subscribe') this.subscribed.add(uri);
    else this.subscribed.delete(uri);
    const acknowledged = await this.relisten();
    if (method === 'resources/subscribe' && !acknowledged?.resourceSubscriptions?.includes(uri)) {
      this.subscribed.delete(uri);
      return refuse(ErrorCode.InternalError, `The upstream did not acknowledge the subscription to ${uri}`);
    }
    this.deliver({ jsonrpc: '2.0', id, result: {} } as JSONRPCMessage);
  }

  /** Reopens the listen stream with the filter of this moment, after the reopenings before it. */
  private relisten(): Promise<Acknowledged | undefined> {
    const next = this.relistening.then(() => this.listen());
    this.relistening = next.catch(() => undefined);
    return next;
  }

  /**
   * A subscriptions/listen stream for the list changes the upstream announces and the resources
   * subscribed to; resolves with what the upstream acknowledged. The stream it replaces is closed
   * once the new one is acknowledged, so no change falls between the two; an upstream that ends
   * the current stream ends the session (it is no longer what it was).
   */
  private listen(): Promise<Acknowledged | undefined> {
    const { tools, prompts, resources } = this.discovered.capabilities;
    const notifications = {
      ...(tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(this.subscribed.size > 0 ? { resourceSubscriptions: [...this.subscribed] } : {}),
    };
    const previous = this.listening;
    if (this.closed) return Promise.resolve(undefined);
    if (Object.keys(notifications).length === 0) {
      this.listening = undefined;
      this.delivering = undefined;
      previous?.abort();
      return Promise.resolve({});
    }
    const controller = new AbortController();
    this.listening = controller;
    const body = { id: 'arbor-listen', method: 'subscriptions/listen', params: { notifications, _meta: envelope({}, this.clientInfo, this.capabilities) } };
    return new Promise((resolve) => {
      void this.exchange
        .post(body, controller.signal, (notification) => {
          if (notification['method'] !== 'notifications/subscriptions/acknowledged') {
            // Until this stream is acknowledged, the one it replaces still tells the changes.
            if (this.delivering === controller) this.deliver(withoutSubscriptionId(notification));
            return;
          }
          if (this.listening === controller) this.delivering = controller;
          previous?.abort();
          resolve(((notification['params'] as Json | undefined)?.['notifications'] ?? {}) as Acknowledged);
        })
        .then(
          () => this.listenEnded(controller),
          (error: unknown) => this.listenEnded(controller, error),
        )
        .finally(() => resolve(undefined));
    });
  }

  private listenEnded(controller: AbortController, error?: unknown): void {
    if (this.closed || this.listening !== controller) return;
    if (error !== undefined) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    void this.close();
  }

  /** Keeps the `x-mcp-header` declarations of the tools a tools/list page names, so their calls carry `Mcp-Param-*` headers. */
  private learn(result: Json): void {
    const tools = result['tools'];
    if (!Array.isArray(tools)) return;
    for (const tool of tools as { name?: unknown; inputSchema?: unknown }[]) {
      if (typeof tool.name !== 'string') continue;
      const declarations = paramHeaderDeclarations(tool.inputSchema);
      if (declarations.length > 0) this.declarations.set(tool.name, declarations);
      else this.declarations.delete(tool.name);
    }
  }

  private deliver(message: JSONRPCMessage | Json): void {
    if (!this.closed) this.onmessage?.(message as JSONRPCMessage);
  }
}

/** What an upstream acknowledged of a listen stream's filter. */
interface Acknowledged {
  resourceSubscriptions?: string[];
}

/** Tool declarations per upstream URL, shared by the pool's session and the downstream sessions' own (which list no tools). */
const DECLARATIONS = new Map<string, Map<string, readonly ParamHeaderDeclaration[]>>();

function declarationsOf(url: URL): Map<string, readonly ParamHeaderDeclaration[]> {
  let declarations = DECLARATIONS.get(url.href);
  if (!declarations) {
    declarations = new Map();
    DECLARATIONS.set(url.href, declarations);
  }
  return declarations;
}

/** The upstream's own JSON-RPC error: passed on with its own words. */
class UpstreamRefusal extends McpError {
  constructor(
    code: number,
    readonly upstreamMessage: string,
    data?: unknown,
  ) {
    super(code, upstreamMessage, data);
  }
}

/** The probe met an older server: a refusal that is no JSON-RPC error of the revision. */
class NotDiscoverFirst extends Error {}

/** POSTs of the revision to one upstream: JSON or an SSE stream answered, notifications handed on. */
class DiscoverFirstExchange {
  private readonly client: UpstreamClient;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(
    private readonly url: URL,
    headers: Readonly<Record<string, string>>,
    allowLinkLocal: boolean,
  ) {
    this.client = upstreamClientFor(allowLinkLocal);
    this.headers = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  }

  async post(
    body: { id: RequestId; method: string; params: Json },
    signal: AbortSignal,
    onNotification: (message: Json) => void,
    extraHeaders: Readonly<Record<string, string>> = {},
  ): Promise<Json> {
    const text = JSON.stringify({ jsonrpc: '2.0', ...body });
    const source = NAME_SOURCE[body.method];
    const name = source ? body.params[source] : undefined;
    const headers: Record<string, string> = {
      ...this.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': String((body.params['_meta'] as Json | undefined)?.[PROTOCOL_VERSION_KEY] ?? DISCOVER_FIRST_VERSION),
      'mcp-method': body.method,
      ...(typeof name === 'string' ? { 'mcp-name': encodeHeaderValue(name) } : {}),
      ...extraHeaders,
    };
    let answer: UpstreamAnswer;
    try {
      answer = await this.client.send({ url: this.url, method: 'POST', headers, body: text, signal, timeoutMs: 0 });
    } catch (error) {
      throw signal.aborted ? new McpError(ErrorCode.ConnectionClosed, 'Cancelled') : new UpstreamConnectionError('POST to the upstream failed', { cause: error });
    }
    return this.read(answer, body.id, onNotification);
  }

  private async read(answer: UpstreamAnswer, id: RequestId, onNotification: (message: Json) => void): Promise<Json> {
    const status = answer.statusCode;
    if (mediaType(answer.headers['content-type']) === 'text/event-stream') return readStream(answer.body, id, onNotification);
    const text = await readText(answer.body);
    let parsed: Json | undefined;
    try {
      parsed = JSON.parse(text) as Json;
    } catch {
      parsed = undefined;
    }
    if (status >= 200 && status < 300 && parsed) return parsed;
    // A discover-first server's refusal is a JSON-RPC error of the revision; anything else is an older server's (or no MCP at all).
    const error = parsed?.['error'] as { code?: unknown } | undefined;
    if (error && typeof error.code === 'number' && DISCOVER_FIRST_ERRORS.has(error.code)) return parsed as Json;
    throw new NotDiscoverFirst(`HTTP ${status}`);
  }
}

const DISCOVER_FIRST_ERRORS = new Set([-32020, -32021, -32022, -32601, -32602]);

/** Resolves with the call's answer as soon as it arrives; the rest of the stream is still read (notifications after it, the connection back to the pool). */
function readStream(body: UpstreamBody, id: RequestId, onNotification: (message: Json) => void): Promise<Json> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const parser = createParser({
      onEvent: (event) => {
        let message: Json;
        try {
          message = JSON.parse(event.data) as Json;
        } catch {
          return;
        }
        if ('id' in message && message['id'] === id && ('result' in message || 'error' in message)) {
          answered = true;
          resolve(message);
        } else if (typeof message['method'] === 'string' && !('id' in message)) {
          onNotification(message);
        }
      },
    });
    void (async () => {
      const decoder = new StringDecoder('utf8');
      try {
        for await (const chunk of body) parser.feed(decoder.write(chunk));
        if (!answered) reject(new McpError(ErrorCode.ConnectionClosed, 'The upstream closed the stream without an answer'));
      } catch (error) {
        if (!answered) reject(new UpstreamConnectionError('the upstream stream failed', { cause: error }));
      }
    })();
  });
}

/** The revision's per-request `_meta`: the gateway's client speaks for the downstream client's capabilities. */
function envelope(meta: Json, clientInfo: Implementation, capabilities: ClientCapabilities = {}): Json {
  return { ...meta, [PROTOCOL_VERSION_KEY]: DISCOVER_FIRST_VERSION, [CLIENT_CAPABILITIES_KEY]: capabilities, [CLIENT_INFO_KEY]: clientInfo };
}

function withoutResultType(result: Json): Json {
  const { resultType: _resultType, ...rest } = result;
  return rest;
}

/** A listen stream's notification as the older versions send it: the gateway's own stream id is no business of the client's. */
function withoutSubscriptionId(notification: Json): Json {
  const params = notification['params'] as Json | undefined;
  const meta = params?.['_meta'] as Json | undefined;
  if (!meta || !(SUBSCRIPTION_ID_KEY in meta)) return notification;
  const { [SUBSCRIPTION_ID_KEY]: _id, ...rest } = meta;
  const { _meta: _old, ...others } = params as Json;
  return { ...notification, params: { ...others, ...(Object.keys(rest).length > 0 ? { _meta: rest } : {}) } };
}

const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';
