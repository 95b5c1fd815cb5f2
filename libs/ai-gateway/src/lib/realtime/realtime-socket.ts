import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { answerOnSocket, UpgradeRoutes } from '@arbor/platform';
import { errorFields } from '@arbor/observability';
import { ProviderError, providerAdapterFor, type UpstreamTarget } from '@arbor/provider-adapters';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { noDeploymentsAvailable } from '../call-router';
import { CallAccounting, type CallAdmission } from '../calls/call-accounting';
import { GatewayMetrics } from '../calls/gateway-metrics';
import { requestedAlias } from '../calls/requested-alias';
import { NO_USAGE } from '../calls/usage';
import type { GatewayDeployment } from '../config/gateway-config';
import { DeploymentRouter } from '../deployment-router';
import { badRequest, openAiError } from '../gateway-errors';
import { GatewayAuthentication, presentedKey } from '../gateway-key.guard';
import type { GatewayCaller } from '../keys/key-verifier';
import { ModelPrices } from '../pricing/model-prices';
import { realtimeUsage } from './realtime-usage';
import { type AnswerEvents, type EventGuard, Guardrails } from '../guardrails/guardrails';
import { splitEvents } from '../guardrails/answer-stream-guard';
import { mayCarryText, REALTIME_CLIENT_EVENTS } from './realtime-event-text';

const PATH = /^(?:\/v1)?\/realtime$/;
// The event that ends a response (read without parsing the event).
const RESPONSE_DONE = /"type"\s*:\s*"response\.done"/;
// Browsers cannot set headers on a WebSocket: OpenAI's SDKs put the key in a subprotocol.
const KEY_PROTOCOL = 'openai-insecure-api-key.';
const BETA_PROTOCOL = 'openai-beta.realtime-v1';
// An audio buffer append carries seconds of base64 audio; OpenAI takes events of up to 15 MiB.
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
// The upstream's handshake (TLS, its key check) is refused past this.
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * OpenAI's Realtime API on `GET /v1/realtime?model=<alias>` (WebSocket), relayed to the alias's
 * deployment on any provider whose folder offers `realtime` (OpenAI, Azure OpenAI): the virtual
 * key checked at the upgrade (Authorization, x-api-key, or the browsers' `openai-insecure-api-key.`
 * subprotocol), then the key's alias access and limits; the upstream opened with the provider's key
 * before the client's upgrade completes (so an upstream refusal is the client's HTTP error). Events
 * pass both ways untouched; each `response.done` is one call: its usage priced (text, audio,
 * cached) and recorded as spend, and the next response admitted against the key's limits (a key
 * over its budget or rate gets an `error` event and the session ends). Either side closing closes
 * the other.
 */
@Injectable()
export class RealtimeSocket implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ai-gateway');
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    // The browser offers `realtime` beside its key: that one is chosen, never the key.
    handleProtocols: (protocols) => (protocols.has('realtime') ? 'realtime' : false),
  });

  constructor(
    private readonly upgrades: UpgradeRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly deployments: DeploymentRouter,
    private readonly accounting: CallAccounting,
    private readonly prices: ModelPrices,
    private readonly metrics: GatewayMetrics,
    private readonly guardrails: Guardrails,
  ) {}

  onModuleInit(): void {
    this.upgrades.add({
      route: '/v1/realtime',
      paths: ['/v1/realtime', '/realtime'],
      matches: (path) => PATH.test(path),
      handle: (request, socket, head) => this.upgrade(request, socket, head),
    });
  }

  async onModuleDestroy(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    let upstream: Upstream;
    let session: Omit<RealtimeSession, 'client'>;
    try {
      const protocols = offeredProtocols(request);
      const caller = await this.authentication.callerFor(presentedKey(request) ?? protocols.find((name) => name.startsWith(KEY_PROTOCOL))?.slice(KEY_PROTOCOL.length));
      const model = new URL(request.url ?? '/', 'http://gateway').searchParams.get('model');
      const alias = requestedAlias({ model: model ?? '' }, caller, this.deployments);
      const deployment = this.deployments.pick(alias);
      if (!deployment) throw noDeploymentsAvailable(alias, this.deployments.soonestAvailableMs(alias));
      const realtime = providerAdapterFor(deployment.provider)?.realtime;
      if (!realtime) throw badRequest(`The model "${alias}" is served by ${deployment.provider}, which offers no realtime sessions.`, 'model');
      // The caller's guardrails (its key's, its project's, default_on) on the text of its events.
      const guard = this.guardrails.eventsOf(REALTIME_CLIENT_EVENTS, caller, request.headers, alias, deployment);
      const answers = this.guardrails.answerEventsOf(REALTIME_CLIENT_EVENTS, caller, request.headers, alias);
      const admission = await this.accounting.admit(caller, alias);
      const beta = request.headers['openai-beta'] ?? (protocols.includes(BETA_PROTOCOL) ? 'realtime=v1' : undefined);
      try {
        upstream = await connect(realtime.target(deployment), beta);
      } catch (error) {
        admission.settle({ alias, deployment, usage: NO_USAGE, cost: 0, failed: true });
        throw error;
      }
      session = {
        caller,
        alias,
        deployment,
        admission,
        upstream: upstream.socket,
        early: upstream.early,
        started: performance.now(),
        ...(guard ? { guard } : {}),
        ...(answers ? { answers } : {}),
      };
    } catch (error) {
      const failure = openAiError(error);
      return answerOnSocket(socket, failure.status, failure.toBody(), failure.headers);
    }
    // A client gone before its upgrade completed leaves no session behind upstream.
    const abandon = () => {
      session.upstream.terminate();
      session.admission?.settle({ alias: session.alias, deployment: session.deployment, usage: NO_USAGE, cost: 0, abandoned: true });
    };
    socket.once('close', abandon);
    this.wss.handleUpgrade(request, socket, head, (client) => {
      socket.off('close', abandon);
      this.relay({ ...session, client });
    });
  }

  private relay(session: RealtimeSession): void {
    const { client, upstream, early } = session;
    let closed = false;
    const close = (code: number, reason: Buffer | string) => {
      if (closed) return;
      closed = true;
      // The next response was admitted but never made: its slot is freed, nothing recorded.
      session.admission?.settle({ alias: session.alias, deployment: session.deployment, usage: NO_USAGE, cost: 0, abandoned: true });
      session.admission = undefined;
      for (const side of [client, upstream]) {
        if (side.readyState === WebSocket.OPEN) side.close(closeCode(code), reason.toString().slice(0, 120));
        else if (side.readyState === WebSocket.CONNECTING) side.terminate();
      }
    };
    const toUpstream = (data: RawData | string, isBinary: boolean) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data as Buffer, { binary: isBinary });
    };
    const { guard } = session;
    if (!guard) client.on('message', toUpstream);
    else {
      // Guarded events go on in the order they came, each once its check is done.
      let queue = Promise.resolve();
      client.on('message', (data: RawData, isBinary: boolean) => {
        queue = queue.then(() => this.guarded(guard, data, isBinary, client, toUpstream));
      });
    }
    const toClient = (data: RawData, isBinary: boolean) => {
      if (client.readyState === WebSocket.OPEN) client.send(data as Buffer, { binary: isBinary });
      if (!isBinary) this.observe(session, data as Buffer, close);
    };
    // What the upstream sent while the client's upgrade completed (session.created) goes first.
    upstream.removeAllListeners('message');
    for (const [data, isBinary] of early) toClient(data, isBinary);
    const { answers } = session;
    if (!answers) upstream.on('message', toClient);
    else {
      // The server's events in the order they came, each response's text through the guardrails.
      const state: AnsweringState = { refused: false };
      let queue = Promise.resolve();
      upstream.on('message', (data: RawData, isBinary: boolean) => {
        queue = queue.then(() => this.guardedAnswer(answers, state, data, isBinary, session, toClient, close));
      });
    }
    client.on('close', (code, reason) => close(code, reason));
    upstream.on('close', (code, reason) => close(code, reason));
    client.on('error', (error) => this.logger.warn('a realtime client socket failed', { err: errorFields(error) }));
    upstream.on('error', (error) => {
      this.logger.warn('a realtime upstream socket failed', { err: errorFields(error) });
      close(1011, 'upstream failed');
    });
  }

  /** A client event under the guardrails: sent on masked, or answered with an `error` event (the session goes on). */
  private async guarded(guard: EventGuard, data: RawData, isBinary: boolean, client: WebSocket, send: (data: RawData | string, isBinary: boolean) => void): Promise<void> {
    if (isBinary || !Buffer.isBuffer(data) || !mayCarryText(data)) return send(data, isBinary);
    let event: unknown;
    try {
      event = JSON.parse(data.toString('utf8'));
    } catch {
      return send(data, isBinary);
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event)) return send(data, isBinary);
    try {
      const checked = await guard(event as Record<string, unknown>);
      send(checked === event ? data : JSON.stringify(checked), false);
    } catch (error) {
      const refusal = openAiError(error);
      const eventId = (event as { event_id?: unknown }).event_id;
      if (client.readyState === WebSocket.OPEN) {
        client.send(JSON.stringify({ type: 'error', event_id: null, error: { ...refusal.toBody().error, event_id: typeof eventId === 'string' ? eventId : null } }));
      }
    }
  }

  /**
   * A server event under the guardrails that check answers: its text masked as a stream's (held
   * while a match may be under way), the response's last event (`response.done`) after the checks
   * of its whole text. A refusal is an `error` event; the rest of that response goes nowhere (it
   * is cancelled upstream) but its usage still counts.
   */
  private async guardedAnswer(
    answers: () => AnswerEvents,
    state: AnsweringState,
    data: RawData,
    isBinary: boolean,
    session: RealtimeSession,
    send: (data: RawData, isBinary: boolean) => void,
    close: (code: number, reason: string) => void,
  ): Promise<void> {
    if (isBinary || !Buffer.isBuffer(data)) return send(data, isBinary);
    const text = data.toString('utf8');
    const last = RESPONSE_DONE.test(text);
    if (state.refused) {
      if (last) {
        state.refused = false;
        this.observe(session, data, close);
      }
      return;
    }
    const response = (state.response ??= answers());
    try {
      const out = response.events(`data: ${text}\n\n`, last);
      if (last) await response.ended?.();
      for (const event of splitEvents(out)) send(Buffer.from(event.replace(/^data: ?/, '').replace(/(\r?\n)+$/, ''), 'utf8'), false);
    } catch (error) {
      const refusal = openAiError(error);
      if (session.client.readyState === WebSocket.OPEN) session.client.send(JSON.stringify({ type: 'error', event_id: null, error: refusal.toBody().error }));
      if (session.upstream.readyState === WebSocket.OPEN && !last) session.upstream.send(JSON.stringify({ type: 'response.cancel' }));
      state.refused = !last;
      if (last) this.observe(session, data, close);
    }
    if (last || state.refused) state.response = undefined;
  }

  /** A `response.done` ends one call: its usage priced and recorded, the next response admitted. */
  private observe(session: RealtimeSession, data: Buffer, close: (code: number, reason: string) => void): void {
    // Only response.done carries usage; other events (audio deltas, megabytes of them) pass unparsed.
    if (data.indexOf('"response.done"') < 0) return;
    let event: { type?: unknown; response?: { usage?: unknown; status?: unknown } };
    try {
      event = JSON.parse(data.toString('utf8')) as typeof event;
    } catch {
      return;
    }
    if (event.type !== 'response.done') return;
    const usage = realtimeUsage(event.response?.usage) ?? NO_USAGE;
    const { alias, deployment } = session;
    const cost = this.prices.cost(deployment, usage);
    const failed = event.response?.status === 'failed';
    session.admission?.settle({ alias, deployment, usage, cost, failed });
    session.admission = undefined;
    const now = performance.now();
    this.metrics.call({
      alias,
      deployment,
      status: failed ? 502 : 200,
      errorCode: failed ? 'realtime_response_failed' : null,
      seconds: (now - session.started) / 1000,
      usage,
      cost,
      retries: 0,
      fallbacks: 0,
      requestedAlias: alias,
    });
    session.started = now;
    this.accounting.admit(session.caller, session.alias).then(
      (admission) => {
        if (session.client.readyState === WebSocket.OPEN) session.admission = admission;
        else admission.settle({ alias, deployment, usage: NO_USAGE, cost: 0, abandoned: true });
      },
      (error: unknown) => {
        const refusal = openAiError(error);
        if (session.client.readyState === WebSocket.OPEN) session.client.send(JSON.stringify({ type: 'error', event_id: null, error: refusal.toBody().error }));
        close(1008, refusal.message);
      },
    );
  }
}

interface RealtimeSession {
  caller: GatewayCaller;
  alias: string;
  deployment: GatewayDeployment;
  /** The next response's admission against the key's limits; settled by its response.done. */
  admission: CallAdmission | undefined;
  client: WebSocket;
  upstream: WebSocket;
  /** Messages the upstream sent before the client's upgrade completed. */
  early: [RawData, boolean][];
  /** When the current response's wait began (the session's start, then the last response.done). */
  started: number;
  /** The guardrails that check the client's events, when any apply. */
  guard?: EventGuard;
  /** The guardrails that check the server's answers (one response at a time), when any apply. */
  answers?: () => AnswerEvents;
}

/** Where a guarded session's answers are: the response under way, or the rest of a refused one being dropped. */
interface AnsweringState {
  response?: AnswerEvents;
  refused: boolean;
}

function offeredProtocols(request: IncomingMessage): string[] {
  const header = request.headers['sec-websocket-protocol'];
  return header === undefined
    ? []
    : header
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
}

/** An open upstream socket and what it sent so far. */
interface Upstream {
  socket: WebSocket;
  early: [RawData, boolean][];
}

/** Opens the upstream socket; an upstream refusing the handshake rejects with its status and error. */
function connect(target: UpstreamTarget, beta: string | string[] | undefined): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const headers = { ...target.headers, ...(beta !== undefined ? { 'openai-beta': Array.isArray(beta) ? beta.join(', ') : beta } : {}) };
    const upstream = new WebSocket(target.url, { headers, handshakeTimeout: CONNECT_TIMEOUT_MS, maxPayload: MAX_MESSAGE_BYTES });
    // The upstream speaks first (session.created), before the client's socket is there to take it.
    const early: [RawData, boolean][] = [];
    upstream.on('message', (data: RawData, isBinary: boolean) => early.push([data, isBinary]));
    upstream.once('open', () => resolve({ socket: upstream, early }));
    upstream.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => reject(refusedHandshake(response.statusCode ?? 502, Buffer.concat(chunks).toString('utf8'))));
      response.on('error', () => reject(refusedHandshake(response.statusCode ?? 502, '')));
    });
    upstream.once('error', (error) =>
      reject(new ProviderError(502, 'api_connection_error', `The realtime upstream could not be reached: ${error.message}`, 'upstream_unreachable')),
    );
  });
}

/** The upstream's refusal of the handshake, in OpenAI-format terms (its own error message when it sent one). */
function refusedHandshake(status: number, body: string): ProviderError {
  let error: { message?: unknown; type?: unknown; code?: unknown } = {};
  try {
    const parsed = JSON.parse(body) as { error?: typeof error };
    if (typeof parsed.error === 'object' && parsed.error !== null) error = parsed.error;
  } catch {
    // Not JSON: the status says enough.
  }
  const kept = [400, 401, 403, 404, 429].includes(status) ? status : 502;
  return new ProviderError(
    kept,
    typeof error.type === 'string' ? error.type : kept === 502 ? 'server_error' : 'invalid_request_error',
    typeof error.message === 'string' ? error.message : `The realtime upstream refused the session (${status}).`,
    typeof error.code === 'string' ? error.code : null,
  );
}

/** A close code either side may send on (1005/1006 are reported, never sent). */
function closeCode(code: number): number {
  return code === 1000 || (code >= 1001 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999) ? code : 1000;
}
