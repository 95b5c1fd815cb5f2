import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { answerBrokeOff, nativeOperation, type NativeOperation, ProviderAnswer, ProviderError, readAll } from '@arbor/provider-adapters';
import { withHopByHop } from '@arbor/platform';
import { CallProgress, CallRouter, isContextWindowError } from '../call-router';
import { GatewayDeployment } from '../config/gateway-config';
import { DeploymentRouter } from '../deployment-router';
import { badRequest } from '../gateway-errors';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { GatewayCaller } from '../keys/key-verifier';
import { ModelPrices } from '../pricing/model-prices';
import { withGatewayIds } from '../endpoints/answer-ids';
import type { EndpointCodec, StreamTap } from '../endpoints/endpoint-codec';
import type { CallRecordContent } from '../spend/spend-recorder';
import { StreamedAnswer } from '../spend/usage-estimate';
import { CallAccounting, CallAdmission } from './call-accounting';
import type { CallResponse } from './call-response';
import { CallStages, type ReplayedAnswer, type StagePass } from './call-stage';
import { applyDropParams, checkGatewayParams, DROPPED_PARAMS_HEADER, droppedParamsHeader, dropsParams } from './drop-params';
import { CallOutcome, GatewayMetrics } from './gateway-metrics';
import { requestedAlias } from './requested-alias';
import { CallUsage, NO_USAGE } from './usage';

// The upstream's hop and framing (the gateway frames the answer anew) are not repeated as llm_provider-*.
const HOP_HEADERS = withHopByHop('content-length', 'content-encoding', 'date', 'server');
// Embeddings of a large batch run to tens of megabytes; beyond this an answer is refused, not buffered.
const MAX_JSON_ANSWER_BYTES = 256 * 1024 * 1024;
// At most this many shorter requests after context-window errors (truncation: auto on a bridged call).
const MAX_SHORTENINGS = 3;

// A call no stage takes part in shares this one empty list: nothing is allocated for it.
const NO_PASSES: readonly StagePass[] = Object.freeze([]);

/** What one call learned on its way, for headers, metrics and spend. */
interface CallState {
  codec: EndpointCodec;
  /** The stages' parts in this call, in order (the family's own first). */
  passes: readonly StagePass[];
  body: Record<string, unknown>;
  started: number;
  /** Time spent waiting for upstreams (every attempt), so that overhead = total − this. */
  upstreamMs: number;
  progress: CallProgress;
  admission?: CallAdmission;
  /** The deployment whose answer is being passed on, counted as busy until the call ends. */
  busy?: string;
  /** Whether that deployment serves the family's operation itself (else the answer came through the bridge). */
  native?: boolean;
  /** The client hung up while an upstream was working on the call (which the hang-up then stopped). */
  hungUpOnUpstream?: boolean;
  settled: boolean;
  /** Set when the response has closed: metrics of a call settled later are recorded at once. */
  closed: boolean;
  /** What the metrics record for the call, kept from its settling until the response has closed. */
  outcome?: CallOutcome;
  /** The answer's headers so far; written once, with the status (Node's fast path, no per-header bookkeeping). */
  headers: Record<string, string | number | string[]>;
  /** The call was answered by a stage, from an earlier call's answer. */
  replayed?: ReplayedAnswer;
}

/**
 * One model call of any endpoint family from request to last byte: the caller's access to the
 * alias, limits and budget, routing with retries and fallbacks (the plan of CallRouter), the
 * upstream answer passed on (JSON whole, streams event by event; bridged through chat
 * completions where the deployment does not serve the family natively), usage learned for cost
 * and spend, and the x-arbor-* headers. What differs between families (request shape, usage,
 * stream grammar, error envelope) is the codec's. What else a call may get (a cached answer, a
 * stored conversation, guardrails) are stages: each registers itself in CallStages and the pipeline
 * runs their hooks at its points without knowing any. Spend and metrics are recorded off the request path.
 */
@Injectable()
export class CallPipeline {
  constructor(
    private readonly deployments: DeploymentRouter,
    private readonly router: CallRouter,
    private readonly prices: ModelPrices,
    private readonly accounting: CallAccounting,
    private readonly metrics: GatewayMetrics,
    private readonly stages: CallStages,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  async handle(
    codec: EndpointCodec,
    caller: GatewayCaller,
    body: Record<string, unknown>,
    requestHeaders: IncomingHttpHeaders,
    response: CallResponse,
    own?: StagePass,
  ): Promise<void> {
    const state: CallState = {
      codec,
      passes: NO_PASSES,
      body,
      started: performance.now(),
      upstreamMs: 0,
      progress: { alias: '', retries: 0, fallbacks: 0 },
      settled: false,
      closed: false,
      headers: { 'x-arbor-call-id': randomUUID() },
    };
    try {
      await this.call(caller, requestHeaders, response, state, own);
    } catch (error) {
      // A refusal carries what the call learned (call id, limits, routing) as a success would.
      if (!response.headersSent) for (const [name, value] of Object.entries(state.headers)) response.setHeader(name, value);
      // Refused before admission (a guardrail's check, a budget, the key's limits): in the call log only.
      if (!state.admission && error instanceof ProviderError && state.progress.alias !== '') {
        this.accounting.refused(caller, body, requestHeaders, {
          alias: this.deployments.groupName(state.progress.alias),
          status: error.status,
          errorCode: error.code,
          callId: state.headers['x-arbor-call-id'] as string,
          latencyMs: performance.now() - state.started,
        });
      }
      throw error;
    }
  }

  private async call(caller: GatewayCaller, requestHeaders: IncomingHttpHeaders, response: CallResponse, state: CallState, own: StagePass | undefined): Promise<void> {
    const { codec, body } = state;
    const alias = requestedAlias(body, caller, this.deployments);
    checkGatewayParams(body);
    state.progress.alias = alias;
    // Before the limits: a stage's refusal of its own malformed controls costs the caller nothing.
    const passes = (state.passes = this.open(codec, caller, body, requestHeaders, alias, own));
    for (let index = 0; index < passes.length; index++) await (passes[index] as StagePass).check?.();

    // A replayed answer is a call like any other for the key's limits; it costs nothing.
    state.admission = await this.accounting.admit(caller, alias, body, requestHeaders);
    Object.assign(state.headers, state.admission.rateLimitHeaders);

    // No paying for answers nobody reads: the client hanging up aborts the upstream call.
    const abort = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) abort.abort(new Error('client disconnected'));
      state.closed = true;
      this.observe(state);
    });

    // Before the plan: the first stage with an answer of its own answers the call.
    for (let index = 0; index < passes.length; index++) {
      const pass = passes[index] as StagePass;
      const replayed = pass.beforePlan ? await pass.beforePlan() : undefined;
      if (replayed) return this.replay(replayed, state, response);
    }

    const streamed = codec.streamed(body);
    const forwarded = codec.forwardedHeaders(requestHeaders);
    let answer: ProviderAnswer | undefined;
    try {
      // The prompt's size, only where routing weighs it (pre-call checks, usage-based routing).
      const demand = this.deployments.needsPromptTokens ? { promptTokens: (await codec.estimateUsage(body)).promptTokens } : {};
      // Retries and fallbacks happen here, before the first byte goes to the client.
      const plan = this.router.plan(state.progress, demand);
      for (let deployment = plan.next(); deployment; deployment = plan.next()) {
        try {
          // retry_after: a pause before retrying an alias's only deployment (aborted with the call).
          if (plan.waitMs > 0) await sleep(plan.waitMs, undefined, { signal: abort.signal });
          answer = await this.attempt(deployment, forwarded, streamed, abort.signal, state);
          break;
        } catch (error) {
          if (abort.signal.aborted || !(error instanceof ProviderError)) throw error;
          plan.failed(deployment, error);
        }
      }
      if (!answer) throw plan.error;
    } catch (error) {
      if (state.hungUpOnUpstream) return this.settleHangUp(state);
      this.finish(state, NO_USAGE, error instanceof ProviderError ? error : undefined);
      if (abort.signal.aborted) return;
      routingHeaders(state, this.deployments);
      throw error;
    }
    if (streamed) await this.stream(answer, state, response, abort.signal);
    else await this.whole(answer, state, response, abort.signal);
  }

  /**
   * One upstream attempt: the operation called natively when the deployment's provider serves it,
   * else through the codec's bridge (the request translated, the answer translated back).
   */
  private async attempt(
    deployment: GatewayDeployment,
    forwarded: Record<string, string | string[] | undefined> | undefined,
    streamed: boolean,
    signal: AbortSignal,
    state: CallState,
  ): Promise<ProviderAnswer> {
    const { codec, body } = state;
    const native = servesItself(deployment, codec) ? nativeOperation(deployment.provider, codec.operation) : undefined;
    const bridge = native ? undefined : codec.bridge;
    const operation = native ?? (bridge ? nativeOperation(deployment.provider, bridge.via.operation) : undefined);
    if (!operation) {
      throw badRequest(`The model "${deployment.alias}" is served by ${deployment.provider}, which offers no ${codec.description}.`, 'model');
    }
    let asked = body;
    // On the request: each stage in turn, on what the one before made of it.
    const { passes } = state;
    for (let index = 0; index < passes.length; index++) {
      const pass = passes[index] as StagePass;
      if (pass.request) asked = pass.request(asked, deployment, native !== undefined);
    }
    for (let shortened = 0; ; shortened++) {
      try {
        return await this.attemptWith(asked, deployment, native, operation, forwarded, streamed, signal, state);
      } catch (error) {
        // The family's own truncation, where the bridged upstream does not do it: on the same deployment, not a retry.
        const shorter = bridge?.shorten && error instanceof ProviderError && isContextWindowError(error) && shortened < MAX_SHORTENINGS ? bridge.shorten(asked, error) : undefined;
        if (!shorter || signal.aborted) throw error;
        asked = shorter;
      }
    }
  }

  /** One call of the deployment with `asked`, the family's request for it. */
  private async attemptWith(
    asked: Record<string, unknown>,
    deployment: GatewayDeployment,
    native: NativeOperation | undefined,
    operation: NativeOperation,
    forwarded: Record<string, string | string[] | undefined> | undefined,
    streamed: boolean,
    signal: AbortSignal,
    state: CallState,
  ): Promise<ProviderAnswer> {
    const { codec, body } = state;
    const bridge = native ? undefined : codec.bridge;
    const via = bridge ? bridge.via : codec;
    // Fields outside the operation's list go on, are dropped or refused, as its adapter declares.
    const params = operation.paramsFor?.(deployment) ?? operation.params;
    // What drop_params removed is named to the client (x-arbor-dropped-params), this attempt's only.
    const dropped: string[] = [];
    const translated = bridge ? bridge.request(asked, { provider: deployment.provider, dropParams: dropsParams(body, this.settings.dropParams), params, dropped }) : asked;
    const request = withDefaults(translated, deployment, params);
    const upstreamBody = applyDropParams(request, params, deployment.provider, this.settings.dropParams, operation.unknownParams, dropped);
    // (Deleted only when an earlier attempt set it: a delete turns the headers object into a slow one.)
    if (dropped.length > 0) state.headers[DROPPED_PARAMS_HEADER] = droppedParamsHeader(dropped);
    else if (state.headers[DROPPED_PARAMS_HEADER] !== undefined) delete state.headers[DROPPED_PARAMS_HEADER];
    // Always learn the usage of a stream, so that spend is right (the tap removes it again when
    // the client did not ask for it).
    via.prepare(upstreamBody, params, streamed);
    const began = performance.now();
    this.deployments.started(deployment.id);
    try {
      // stream_timeout: streamed calls wait for each chunk that long instead of `timeout`.
      const target = streamed && deployment.streamTimeoutMs !== undefined ? { ...deployment, timeoutMs: deployment.streamTimeoutMs } : deployment;
      const answer = await operation.call({ deployment: target, body: upstreamBody, signal, ...(native && forwarded ? { headers: forwarded } : {}) });
      this.deployments.observeLatency(deployment.id, performance.now() - began);
      state.busy = deployment.id;
      state.native = native !== undefined;
      return bridge ? bridge.answer(answer, asked, streamed) : answer;
    } catch (error) {
      this.deployments.finished(deployment.id);
      if (signal.aborted) state.hungUpOnUpstream = true;
      throw error;
    } finally {
      state.upstreamMs += performance.now() - began;
    }
  }

  /** A JSON answer: read whole (it has to arrive anyway), usage and cost taken from it, sent on unchanged. */
  private async whole(answer: ProviderAnswer, state: CallState, response: CallResponse, signal: AbortSignal): Promise<void> {
    const began = performance.now();
    let bytes: Buffer;
    try {
      bytes = await readAll(answer.body, MAX_JSON_ANSWER_BYTES);
    } catch (error) {
      if (signal.aborted) return this.settleHangUp(state);
      const failure = answerBrokeOff(error);
      this.finish(state, NO_USAGE, failure);
      routingHeaders(state, this.deployments);
      throw failure;
    } finally {
      state.upstreamMs += performance.now() - began;
    }
    const usage = state.codec.usageOfAnswer(bytes, state.body);
    const { cost, keySpend } = this.finish(state, usage ?? NO_USAGE);
    if (usage && state.codec.withCost) bytes = state.codec.withCost(bytes, roundedUsd(cost));
    const { passes } = state;
    if (passes.length > 0) bytes = await this.answered(bytes, state);
    const { headers } = state;
    upstreamHeaders(headers, answer.headers);
    routingHeaders(state, this.deployments);
    headers['x-arbor-response-cost'] = formatUsd(cost);
    if (keySpend !== undefined) headers['x-arbor-key-spend'] = formatUsd(keySpend);
    headers['content-type'] = answer.contentType;
    headers['content-length'] = bytes.length;
    response.writeHead(answer.status, headers).end(bytes);
    if (passes.length > 0) this.after(state, answer, false, false, bytes);
  }

  /**
   * On the answer (a JSON one, or as its codec reads it as a document): the stages that rewrite it first, in order, then the stages that
   * keep it get its document (as the client gets it), and it takes the ids they give it.
   */
  private async answered(bytes: Buffer, state: CallState): Promise<Buffer> {
    const { passes, progress } = state;
    const ids = idsOf(passes);
    if (!progress.deployment || (!ids && !passes.some((pass) => pass.answer || pass.rewrite))) return bytes;
    let text = bytes.toString('utf8');
    const format = state.codec.answerDocument;
    const parsed = format ? format.read(bytes, state.body) : (JSON.parse(text) as Record<string, unknown>);
    const document = await rewritten(passes, parsed);
    if (document !== parsed) text = format ? format.write(document, state.body) : JSON.stringify(document);
    for (const pass of passes) if (pass.answer) await pass.answer(document, progress.deployment, state.native === true);
    if (ids) return Buffer.from(withGatewayIds(text, typeof document['id'] === 'string' ? document['id'] : undefined, ids), 'utf8');
    return document === parsed ? bytes : Buffer.from(text, 'utf8');
  }

  /** After the call: the stages that keep answers get the one the client got. */
  private after(state: CallState, answer: ProviderAnswer, streamed: boolean, raw: boolean, bytes?: Buffer): void {
    const { deployment } = state.progress;
    if (!deployment || !state.passes.some((pass) => pass.after)) return;
    const delivered = {
      status: answer.status,
      streamed,
      raw,
      contentType: answer.contentType,
      deploymentId: deployment.id,
      provider: deployment.provider,
      ...(bytes ? { text: bytes.toString('utf8') } : {}),
    };
    for (const pass of state.passes) pass.after?.(delivered);
  }

  /**
   * Server-sent events, passed on as they arrive (never buffered beyond one event). Cost and the
   * key's spend are known only at the end: they follow as HTTP trailers. An upstream failing
   * mid-stream ends the stream with the family's error event. The headers leave with the first
   * event, as a proxy's would: one write fewer per call, and no later for the client.
   */
  private async stream(answer: ProviderAnswer, state: CallState, response: CallResponse, signal: AbortSignal): Promise<void> {
    const { codec, body, headers, passes } = state;
    const keepsAnswer = passes.length > 0 && passes.some((pass) => pass.answer);
    const tap = codec.streamTap(body, this.settings, keepsAnswer, passes.length > 0 ? idsOf(passes) : undefined);
    // On each streamed piece: only when a stage watches or rewrites them (never for bytes).
    const watched = passes.length > 0 && !tap.raw && passes.some((pass) => pass.piece);
    const rewriting = passes.length > 0 && !tap.raw && passes.some((pass) => pass.events);
    upstreamHeaders(headers, answer.headers);
    routingHeaders(state, this.deployments);
    headers['content-type'] = answer.contentType;
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
    headers['trailer'] = 'x-arbor-response-cost, x-arbor-key-spend';
    response.writeHead(answer.status, headers);

    let firstChunkAt: number | undefined;
    let failure: ProviderError | undefined;
    // A stage ended the stream (its events would have gone on against its rule): the upstream is stopped.
    let refusal: ProviderError | undefined;
    // What the tap held back to the end (or the error event): written with the end of the answer.
    let last = '';
    // Bytes (audio) are passed on and forgotten; events are kept in part for a hang-up's estimate.
    const streamed = tap.raw ? undefined : new StreamedAnswer();
    try {
      for await (const chunk of answer.body) {
        streamed?.push(chunk as Buffer);
        let out = tap.push(chunk as Buffer);
        if (rewriting && typeof out === 'string' && out.length > 0) {
          const next = rewrittenEvents(passes, out, false);
          if (next instanceof ProviderError) {
            refusal = next;
            break;
          }
          out = next;
        }
        if (out.length === 0) continue;
        firstChunkAt ??= performance.now();
        if (watched && typeof out === 'string') for (const pass of passes) pass.piece?.(out);
        if (!response.write(out)) await once(response, 'drain', { signal });
      }
      if (!refusal) last = tap.end();
    } catch (error) {
      if (!signal.aborted) {
        failure = answerBrokeOff(error);
        last = codec.streamErrorEvent(failure, tap);
      }
    }
    if (refusal) return this.refuseStream(refusal, state, response, tap, streamed, firstChunkAt);
    failure ??= tap.error;
    if (signal.aborted && !tap.usage && !failure) {
      // The hang-up stopped the upstream before its usage chunk; the prompt and the answer so far still cost.
      void codec.estimateUsage(body, streamed).then(
        (usage) => this.finish(state, usage, undefined, firstChunkAt),
        () => this.finish(state, NO_USAGE, undefined, firstChunkAt),
      );
      return;
    }
    const { cost, keySpend } = this.finish(state, tap.usage ?? NO_USAGE, failure, firstChunkAt);
    if (signal.aborted) return;
    // Audio cut short must not look whole to its player.
    if (failure && tap.raw && response.destroy) return void response.destroy(failure);
    const { deployment } = state.progress;
    if (tap.release) last += tap.release(roundedUsd(cost));
    // What the rewriting stages held back goes now; one that refuses it ends the stream instead.
    let ending = rewriting ? rewrittenEvents(passes, last, true) : last;
    const checked = rewriting && typeof ending === 'string' ? endChecks(passes) : undefined;
    if (checked) ending = (await checked) ?? ending;
    if (ending instanceof ProviderError) {
      response.end(codec.streamErrorEvent(ending, tap));
      return;
    }
    last = ending;
    if (!failure && tap.final && keepsAnswer && deployment) {
      const final = await rewritten(passes, tap.final);
      for (const pass of passes) if (pass.answer) await pass.answer(final, deployment, state.native === true);
    }
    if (watched && last !== '') for (const pass of passes) pass.piece?.(last);
    response.addTrailers({ 'x-arbor-response-cost': formatUsd(cost), ...(keySpend !== undefined ? { 'x-arbor-key-spend': formatUsd(keySpend) } : {}) });
    // The last events leave with the end of the answer: one write, not two.
    response.end(last === '' ? undefined : last);
    if (!failure && passes.length > 0) this.after(state, answer, true, tap.raw === true);
  }

  /**
   * A stream a stage ended: the upstream was stopped there, the client gets the family's error event
   * in place of what was held back, and the call costs what the upstream had used (estimated from
   * the prompt and what it had sent, as for a hang-up).
   */
  private refuseStream(
    refusal: ProviderError,
    state: CallState,
    response: CallResponse,
    tap: StreamTap,
    streamed: StreamedAnswer | undefined,
    firstChunkAt: number | undefined,
  ): void {
    const settle = (usage: CallUsage) => this.finish(state, usage, refusal, firstChunkAt, true);
    void state.codec.estimateUsage(state.body, streamed).then(settle, () => settle(NO_USAGE));
    response.end(state.codec.streamErrorEvent(refusal, tap));
  }

  /**
   * An answer a stage kept from an earlier call, as the client first got it (a stream as its events,
   * in one write): no upstream, no cost; marked as the stage says and, in spend, as replayed.
   */
  private replay(hit: ReplayedAnswer, state: CallState, response: CallResponse): void {
    state.replayed = hit;
    const { cost, keySpend } = this.finish(state, NO_USAGE);
    const { headers } = state;
    routingHeaders(state, this.deployments);
    headers['x-arbor-model-id'] = hit.deploymentId;
    if (hit.headers) Object.assign(headers, hit.headers);
    headers['x-arbor-response-cost'] = formatUsd(cost);
    if (keySpend !== undefined) headers['x-arbor-key-spend'] = formatUsd(keySpend);
    headers['content-type'] = hit.contentType;
    if (hit.streamed) {
      headers['cache-control'] = 'no-cache';
      headers['x-accel-buffering'] = 'no';
    } else headers['content-length'] = Buffer.byteLength(hit.body);
    response.writeHead(200, headers).end(hit.body);
  }

  /**
   * A call whose client hung up before its answer came: the upstream, stopped by the hang-up, had
   * read the prompt and reported no usage. Its prompt is counted (estimated) so that a caller
   * cannot spend unseen by hanging up just before every answer.
   */
  private settleHangUp(state: CallState): void {
    void state.codec.estimateUsage(state.body).then(
      (usage) => this.finish(state, usage),
      () => this.finish(state, NO_USAGE),
    );
  }

  /**
   * Once per call: cost, limits and spend settled, the deployment's slot freed. Its metrics are
   * recorded when the response has closed, after the last byte left rather than before it.
   */
  private finish(state: CallState, usage: CallUsage, failure?: ProviderError, firstChunkAt?: number, paid = failure === undefined): { cost: number; keySpend?: number } {
    if (state.settled) return { cost: 0 };
    state.settled = true;
    const { deployment } = state.progress;
    const cost = deployment && paid ? this.prices.cost(deployment, usage) : 0;
    if (state.busy) this.deployments.finished(state.busy);
    if (deployment && !failure) this.deployments.usedTokens(deployment.id, usage.promptTokens + usage.completionTokens);
    const hit = state.replayed ? { replayed: { deploymentId: state.replayed.deploymentId, provider: state.replayed.provider } } : {};
    // Spend and metrics by the configured model_name (a wildcard's pattern): names clients send stay out of the series.
    const group = this.deployments.groupName(state.progress.alias);
    const callId = state.headers['x-arbor-call-id'] as string;
    const { keySpend } =
      state.admission?.settle({
        alias: group,
        deployment,
        usage,
        cost,
        failed: failure !== undefined,
        callId,
        status: failure?.status,
        errorCode: failure?.code ?? null,
        retries: state.progress.retries,
        fallbacks: state.progress.fallbacks,
        content: state.passes.length > 0 ? recordedContent(state.passes, failure !== undefined) : undefined,
        ...hit,
      }) ?? {};
    state.outcome = {
      alias: group,
      deployment,
      status: failure?.status ?? 200,
      errorCode: failure?.code ?? null,
      seconds: (performance.now() - state.started) / 1000,
      ...(firstChunkAt !== undefined ? { firstTokenSeconds: (firstChunkAt - state.started) / 1000 } : {}),
      usage,
      cost,
      retries: state.progress.retries,
      fallbacks: state.progress.fallbacks,
      requestedAlias: group,
    };
    if (state.closed) this.observe(state);
    return { cost, ...(keySpend !== undefined ? { keySpend } : {}) };
  }

  /**
   * Before the plan: the registered stages that are on, opened in order after the family's own pass
   * (the one its extension brings); a call none takes part in gets the shared empty list.
   */
  private open(
    codec: EndpointCodec,
    caller: GatewayCaller,
    body: Record<string, unknown>,
    headers: IncomingHttpHeaders,
    alias: string,
    own: StagePass | undefined,
  ): readonly StagePass[] {
    const stages = this.stages.active;
    let passes: StagePass[] | undefined;
    if (stages.length > 0) {
      const call = { codec, caller, body, headers, alias, keepsAnswer: own?.answer !== undefined };
      for (const stage of stages) {
        const pass = stage.open(call);
        if (pass) (passes ??= own ? [own] : []).push(pass);
      }
    }
    return passes ?? (own ? [own] : NO_PASSES);
  }

  private observe(state: CallState): void {
    if (!state.outcome) return;
    this.metrics.call(state.outcome);
    state.outcome = undefined;
  }
}

/** The deployment's default request parameters (litellm_params `temperature`, `max_tokens`, …) the operation takes, under the request's own: the request wins. */
function withDefaults(request: Record<string, unknown>, deployment: GatewayDeployment, params: ReadonlySet<string>): Record<string, unknown> {
  const { defaults } = deployment;
  if (!defaults) return request;
  let merged: Record<string, unknown> | undefined;
  for (const key in defaults) {
    if (request[key] !== undefined || !params.has(key)) continue;
    merged ??= { ...request };
    merged[key] = defaults[key];
  }
  return merged ?? request;
}

/** Whether the deployment serves the family's endpoint itself, unless its model_info.supported_endpoints says it does not. */
function servesItself(deployment: GatewayDeployment, codec: EndpointCodec): boolean {
  const listed = deployment.supportedEndpoints;
  return listed === undefined || codec.paths.some((path) => listed.has(path));
}

function upstreamHeaders(headers: CallState['headers'], upstream: IncomingHttpHeaders): void {
  for (const name in upstream) {
    const value = upstream[name];
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    headers[`llm_provider-${name}`] = value;
  }
}

/** Which alias and deployment answered, after how many retries and fallbacks, and what the gateway added. */
function routingHeaders(state: CallState, deployments: DeploymentRouter): void {
  const { progress, headers } = state;
  // A model_group_alias name reports the group it called, as LiteLLM's model group.
  headers['x-arbor-model-group'] = deployments.groupAliasTarget(progress.alias) ?? progress.alias;
  if (progress.deployment) headers['x-arbor-model-id'] = progress.deployment.id;
  headers['x-arbor-attempted-retries'] = String(progress.retries);
  headers['x-arbor-attempted-fallbacks'] = String(progress.fallbacks);
  const total = performance.now() - state.started;
  headers['x-arbor-response-duration-ms'] = total.toFixed(1);
  headers['x-arbor-overhead-duration-ms'] = Math.max(0, total - state.upstreamMs).toFixed(1);
}

/** A JSON answer as the stages that rewrite it leave it, in order (`document` itself when none changed it). */
async function rewritten(passes: readonly StagePass[], document: Record<string, unknown>): Promise<Record<string, unknown>> {
  let current = document;
  for (const pass of passes) if (pass.rewrite) current = (await pass.rewrite(current)) ?? current;
  return current;
}

/** Streamed events as the stages that rewrite them let them go on, or the refusal one of them answered. */
function rewrittenEvents(passes: readonly StagePass[], text: string, final: boolean): string | ProviderError {
  let out = text;
  try {
    for (const pass of passes) if (pass.events) out = pass.events(out, final);
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  return out;
}

/** The stages' checks at a stream's end, in order: the refusal one of them answered; undefined (no wait at all) when no stage checks. */
function endChecks(passes: readonly StagePass[]): Promise<ProviderError | undefined> | undefined {
  if (!passes.some((pass) => pass.ended)) return undefined;
  return (async () => {
    try {
      for (const pass of passes) if (pass.ended) await pass.ended();
    } catch (error) {
      if (error instanceof ProviderError) return error;
      throw error;
    }
    return undefined;
  })();
}

/** What the stages add to the call's record: the first stage's that gives any. */
function recordedContent(passes: readonly StagePass[], failed: boolean): CallRecordContent | undefined {
  for (const pass of passes) {
    const content = pass.recorded?.(failed);
    if (content) return content;
  }
  return undefined;
}

/** The ids the answer carries in place of the upstream's: the first stage's that gives any. */
function idsOf(passes: readonly StagePass[]): StagePass['ids'] {
  for (const pass of passes) if (pass.ids) return pass.ids;
  return undefined;
}

/** USD to the picodollar, without float noise (4.05e-6, not 4.0500000000000005e-6). */
function roundedUsd(value: number): number {
  return Math.round(value * 1e12) / 1e12;
}

function formatUsd(value: number): string {
  return String(roundedUsd(value));
}
