import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { answerBrokeOff, ProviderAnswer, providerAdapterFor, ProviderError, ProviderOperation, readAll, supportedParams } from '@arbor/provider-adapters';
import { CallProgress, CallRouter } from '../call-router';
import { GatewayDeployment } from '../config/gateway-config';
import { DeploymentRouter } from '../deployment-router';
import { badRequest, keyModelAccessDenied, unknownModel } from '../gateway-errors';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { GatewayCaller, mayUseAlias } from '../keys/key-verifier';
import { ModelPrices } from '../pricing/model-prices';
import { CallAccounting, CallAdmission } from './call-accounting';
import { applyDropParams, checkGatewayParams } from './drop-params';
import { estimatePromptUsage, estimateStreamedUsage, StreamedAnswer } from '../spend/usage-estimate';
import { CallOutcome, GatewayMetrics } from './gateway-metrics';
import { StreamUsageTap } from './stream-usage';
import { CallUsage, NO_USAGE, usageOfJsonAnswer } from './usage';

// Connection-level headers describe the upstream hop, not the answer; they are not repeated.
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date', 'server']);
// Embeddings of a large batch run to tens of megabytes; beyond this an answer is refused, not buffered.
const MAX_JSON_ANSWER_BYTES = 256 * 1024 * 1024;
const OPERATION_NAMES: Record<ProviderOperation, string> = { chat: 'chat completions', completions: 'completions', embeddings: 'embeddings' };

/** What one call learned on its way, for headers, metrics and spend. */
interface CallState {
  started: number;
  /** Time spent waiting for upstreams (every attempt), so that overhead = total − this. */
  upstreamMs: number;
  progress: CallProgress;
  admission?: CallAdmission;
  /** The deployment whose answer is being passed on, counted as busy until the call ends. */
  busy?: string;
  /** The client hung up while an upstream was working on the call (which the hang-up then stopped). */
  hungUpOnUpstream?: boolean;
  settled: boolean;
  /** Set when the response has closed: metrics of a call settled later are recorded at once. */
  closed: boolean;
  /** What the metrics record for the call, kept from its settling until the response has closed. */
  outcome?: CallOutcome;
  /** The answer's headers so far; written once, with the status (Node's fast path, no per-header bookkeeping). */
  headers: Record<string, string | number | string[]>;
}

/**
 * One family A call (chat completions, completions, embeddings) from request to last byte: the
 * caller's access to the alias, limits and budget, routing with retries and fallbacks, the
 * upstream answer passed on (JSON whole, streams event by event), usage learned for cost and
 * spend, and the x-arbor-* headers. Spend and metrics are recorded off the request path.
 */
@Injectable()
export class FamilyACalls {
  constructor(
    private readonly deployments: DeploymentRouter,
    private readonly router: CallRouter,
    private readonly prices: ModelPrices,
    private readonly accounting: CallAccounting,
    private readonly metrics: GatewayMetrics,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  async handle(operation: ProviderOperation, caller: GatewayCaller, body: Record<string, unknown>, response: ServerResponse): Promise<void> {
    const state: CallState = {
      started: performance.now(),
      upstreamMs: 0,
      progress: { alias: '', retries: 0, fallbacks: 0 },
      settled: false,
      closed: false,
      headers: { 'x-arbor-call-id': randomUUID() },
    };
    try {
      await this.call(operation, caller, body, response, state);
    } catch (error) {
      // A refusal carries what the call learned (call id, limits, routing) as a success would.
      if (!response.headersSent) for (const [name, value] of Object.entries(state.headers)) response.setHeader(name, value);
      throw error;
    }
  }

  private async call(operation: ProviderOperation, caller: GatewayCaller, body: Record<string, unknown>, response: ServerResponse, state: CallState): Promise<void> {
    const alias = body['model'];
    if (typeof alias !== 'string' || alias === '') throw badRequest('model is required.', 'model');
    // Before the existence check, so that a restricted key learns nothing of other aliases.
    if (!mayUseAlias(caller, alias)) throw keyModelAccessDenied(alias);
    if (!this.deployments.has(alias)) throw unknownModel(alias);
    checkGatewayParams(body);
    state.progress.alias = alias;

    state.admission = await this.accounting.admit(caller);
    Object.assign(state.headers, state.admission.rateLimitHeaders);

    // No paying for answers nobody reads: the client hanging up aborts the upstream call.
    const abort = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) abort.abort(new Error('client disconnected'));
      state.closed = true;
      this.observe(state);
    });

    const streamed = body['stream'] === true && operation !== 'embeddings';
    let answer: ProviderAnswer;
    try {
      // Retries and fallbacks happen here, before the first byte goes to the client.
      answer = await this.router.route(state.progress, (deployment) => this.attempt(operation, deployment, body, streamed, abort.signal, state), abort.signal);
    } catch (error) {
      if (state.hungUpOnUpstream) return this.settleHangUp(state, body);
      this.finish(state, NO_USAGE, error instanceof ProviderError ? error : undefined);
      if (abort.signal.aborted) return;
      routingHeaders(state);
      throw error;
    }
    if (streamed) await this.stream(answer, body, state, response, abort.signal);
    else await this.whole(answer, body, state, response, abort.signal);
  }

  private async attempt(
    operation: ProviderOperation,
    deployment: GatewayDeployment,
    body: Record<string, unknown>,
    streamed: boolean,
    signal: AbortSignal,
    state: CallState,
  ): Promise<ProviderAnswer> {
    const adapter = providerAdapterFor(deployment.provider);
    const supported = supportedParams(deployment.provider, operation);
    const send = operation === 'chat' ? adapter?.chatCompletions : operation === 'completions' ? adapter?.completions : adapter?.embeddings;
    if (!adapter || !supported || !send) {
      throw badRequest(`The model "${deployment.alias}" is served by ${deployment.provider}, which offers no ${OPERATION_NAMES[operation]}.`, 'model');
    }
    const upstreamBody = applyDropParams(body, supported, deployment.provider, this.settings.dropParams);
    // Always learn the usage of a stream, so that spend is right; the tap removes it again when
    // the client did not ask for it.
    if (streamed && supported.has('stream_options')) {
      const options = typeof upstreamBody['stream_options'] === 'object' && upstreamBody['stream_options'] !== null ? upstreamBody['stream_options'] : {};
      upstreamBody['stream_options'] = { ...options, include_usage: true };
    }
    const began = performance.now();
    this.deployments.started(deployment.id);
    try {
      const answer = await send.call(adapter, { deployment, body: upstreamBody, signal });
      this.deployments.observeLatency(deployment.id, performance.now() - began);
      state.busy = deployment.id;
      return answer;
    } catch (error) {
      this.deployments.finished(deployment.id);
      if (signal.aborted) state.hungUpOnUpstream = true;
      throw error;
    } finally {
      state.upstreamMs += performance.now() - began;
    }
  }

  /** A JSON answer: read whole (it has to arrive anyway), usage and cost taken from it, sent on unchanged. */
  private async whole(answer: ProviderAnswer, body: Record<string, unknown>, state: CallState, response: ServerResponse, signal: AbortSignal): Promise<void> {
    const began = performance.now();
    let bytes: Buffer;
    try {
      bytes = await readAll(answer.body, MAX_JSON_ANSWER_BYTES);
    } catch (error) {
      if (signal.aborted) return this.settleHangUp(state, body);
      const failure = answerBrokeOff(error);
      this.finish(state, NO_USAGE, failure);
      routingHeaders(state);
      throw failure;
    } finally {
      state.upstreamMs += performance.now() - began;
    }
    const usage = usageOfJsonAnswer(bytes);
    const { cost, keySpend } = this.finish(state, usage ?? NO_USAGE);
    const { headers } = state;
    upstreamHeaders(headers, answer.headers);
    routingHeaders(state);
    headers['x-arbor-response-cost'] = formatUsd(cost);
    if (keySpend !== undefined) headers['x-arbor-key-spend'] = formatUsd(keySpend);
    headers['content-type'] = answer.contentType;
    headers['content-length'] = bytes.length;
    response.writeHead(answer.status, headers).end(bytes);
  }

  /**
   * Server-sent events, passed on as they arrive (never buffered beyond one event). Cost and the
   * key's spend are known only at the end: they follow as HTTP trailers. An upstream failing
   * mid-stream ends the stream with a family A error event. The headers leave with the first
   * event, as a proxy's would: one write fewer per call, and no later for the client.
   */
  private async stream(answer: ProviderAnswer, body: Record<string, unknown>, state: CallState, response: ServerResponse, signal: AbortSignal): Promise<void> {
    const options = body['stream_options'] as { include_usage?: unknown } | undefined;
    const tap = new StreamUsageTap(options?.include_usage === true || this.settings.alwaysIncludeStreamUsage);
    const { headers } = state;
    upstreamHeaders(headers, answer.headers);
    routingHeaders(state);
    headers['content-type'] = answer.contentType;
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
    headers['trailer'] = 'x-arbor-response-cost, x-arbor-key-spend';
    response.writeHead(answer.status, headers);

    let firstChunkAt: number | undefined;
    let failure: ProviderError | undefined;
    // What the tap held back to the end (or the error event): written with the end of the answer.
    let last = '';
    const streamed = new StreamedAnswer();
    try {
      for await (const chunk of answer.body) {
        streamed.push(chunk as Buffer);
        const out = tap.push(chunk as Buffer);
        if (out === '') continue;
        firstChunkAt ??= performance.now();
        if (!response.write(out)) await once(response, 'drain', { signal });
      }
      last = tap.end();
    } catch (error) {
      if (!signal.aborted) {
        failure = answerBrokeOff(error);
        last = `data: ${JSON.stringify(failure.toBody())}\n\n`;
      }
    }
    failure ??= tap.error ? upstreamErrorEvent(tap.error) : undefined;
    if (signal.aborted && !tap.usage && !failure) {
      // The hang-up stopped the upstream before its usage chunk; the prompt and the answer so far still cost.
      void estimateStreamedUsage(body, streamed).then(
        (usage) => this.finish(state, usage, undefined, firstChunkAt),
        () => this.finish(state, NO_USAGE, undefined, firstChunkAt),
      );
      return;
    }
    const { cost, keySpend } = this.finish(state, tap.usage ?? NO_USAGE, failure, firstChunkAt);
    if (signal.aborted) return;
    response.addTrailers({ 'x-arbor-response-cost': formatUsd(cost), ...(keySpend !== undefined ? { 'x-arbor-key-spend': formatUsd(keySpend) } : {}) });
    // The last events leave with the end of the answer: one write, not two.
    response.end(last === '' ? undefined : last);
  }

  /**
   * A call whose client hung up before its answer came: the upstream, stopped by the hang-up, had
   * read the prompt and reported no usage. Its prompt is counted (estimated) so that a caller
   * cannot spend unseen by hanging up just before every answer.
   */
  private settleHangUp(state: CallState, body: Record<string, unknown>): void {
    void estimatePromptUsage(body).then(
      (usage) => this.finish(state, usage),
      () => this.finish(state, NO_USAGE),
    );
  }

  /**
   * Once per call: cost, limits and spend settled, the deployment's slot freed. Its metrics are
   * recorded when the response has closed, after the last byte left rather than before it.
   */
  private finish(state: CallState, usage: CallUsage, failure?: ProviderError, firstChunkAt?: number): { cost: number; keySpend?: number } {
    if (state.settled) return { cost: 0 };
    state.settled = true;
    const { deployment } = state.progress;
    const cost = deployment && !failure ? this.prices.cost(deployment, usage) : 0;
    if (state.busy) this.deployments.finished(state.busy);
    const { keySpend } = state.admission?.settle({ alias: state.progress.alias, deployment, usage, cost }) ?? {};
    state.outcome = {
      alias: state.progress.alias,
      deployment,
      status: failure?.status ?? 200,
      errorCode: failure?.code ?? null,
      seconds: (performance.now() - state.started) / 1000,
      ...(firstChunkAt !== undefined ? { firstTokenSeconds: (firstChunkAt - state.started) / 1000 } : {}),
      usage,
      cost,
      retries: state.progress.retries,
      fallbacks: state.progress.fallbacks,
      requestedAlias: state.progress.alias,
    };
    if (state.closed) this.observe(state);
    return { cost, ...(keySpend !== undefined ? { keySpend } : {}) };
  }

  private observe(state: CallState): void {
    if (!state.outcome) return;
    this.metrics.call(state.outcome);
    state.outcome = undefined;
  }
}

/** An error event an upstream sent in its stream, for metrics (the client got it as it was). */
function upstreamErrorEvent(error: { type?: unknown; code?: unknown; message?: unknown }): ProviderError {
  const code = typeof error.code === 'string' ? error.code : typeof error.type === 'string' ? error.type : 'stream_error';
  return new ProviderError(502, typeof error.type === 'string' ? error.type : 'api_error', String(error.message ?? 'stream error'), code);
}

function upstreamHeaders(headers: CallState['headers'], upstream: IncomingHttpHeaders): void {
  for (const name in upstream) {
    const value = upstream[name];
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    headers[`llm_provider-${name}`] = value;
  }
}

/** Which alias and deployment answered, after how many retries and fallbacks, and what the gateway added. */
function routingHeaders(state: CallState): void {
  const { progress, headers } = state;
  headers['x-arbor-model-group'] = progress.alias;
  if (progress.deployment) headers['x-arbor-model-id'] = progress.deployment.id;
  headers['x-arbor-attempted-retries'] = String(progress.retries);
  headers['x-arbor-attempted-fallbacks'] = String(progress.fallbacks);
  const total = performance.now() - state.started;
  headers['x-arbor-response-duration-ms'] = total.toFixed(1);
  headers['x-arbor-overhead-duration-ms'] = Math.max(0, total - state.upstreamMs).toFixed(1);
}

/** USD to the picodollar, without float noise (4.05e-6, not 4.0500000000000005e-6). */
function formatUsd(value: number): string {
  return String(Math.round(value * 1e12) / 1e12);
}
