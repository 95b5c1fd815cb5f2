import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DirectRoutes, headersForNextHop, readRequestBody } from '@arbor/platform';
import {
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  nativeOperation,
  passThroughHeaders,
  ProviderError,
  readAll,
  providerAdapterFor,
  providerAdapters,
  sendUpstream,
  type PassThroughApi,
  type UpstreamResponse,
  type UpstreamTarget,
} from '@arbor/provider-adapters';
import { CallAccounting, type CallAdmission } from '../calls/call-accounting';
import { GatewayMetrics } from '../calls/gateway-metrics';
import { type CallUsage, NO_USAGE } from '../calls/usage';
import type { GatewayDeployment } from '../config/gateway-config';
import { clientCodec } from '../endpoints/client-codec';
import { sendError, type EndpointCodec } from '../endpoints/endpoint-codec';
import { ENDPOINT_CODECS } from '../endpoints/endpoint-codecs';
import { keyModelAccessDenied, passThroughNotConfigured } from '../gateway-errors';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { GatewayAuthentication } from '../gateway-key.guard';
import { mayUseAlias } from '../keys/key-verifier';
import { ModelPrices } from '../pricing/model-prices';
import { type OwnershipPlan, PassThroughOwnership } from './pass-through-ownership';
import { type AnswerMeter, BatchResultsMeter, UsageMeter } from './usage-meter';
import { guardedStream } from './guarded-stream';
import { hasBody, MAX_REQUEST_BYTES } from '../calls/request-body';
import { type GuardedPassThrough, Guardrails } from '../guardrails/guardrails';
import { isObject } from '../endpoints/request-text';
import type { GatewayCaller } from '../keys/key-verifier';

// Batch results already priced by this replica: read again, they are not charged again.
const MAX_PRICED_BATCHES = 10_000;
// A model call's JSON answer read whole for the guardrails that check it (the pipeline's bound).
const MAX_GUARDED_ANSWER_BYTES = 256 * 1024 * 1024;

/**
 * The vendors' whole APIs 1:1 under `/<vendor>/…` (`/openai/v1/conversations`, `/anthropic/v1/files`),
 * for every provider folder that offers one (`passThrough`): the caller's virtual key checked, its
 * limits and budget applied, the key swapped for the provider key of the FIRST deployment of that
 * provider in `model_list` (the caller must be allowed that deployment's alias), and the request
 * and answer streamed both ways untouched. Calls of a model endpoint the gateway knows (chat
 * completions, completions, embeddings, responses, messages) are metered on the way: their usage
 * read from the answer or stream, priced by the model the vendor names in it, recorded as spend.
 * A finished batch's results (`batchResults`), read through the pass-through the first time on a
 * replica, are priced line by line at the batch price and recorded as one call. Nothing is routed
 * elsewhere: no retries, no fallbacks. Each project reaches only its own objects (PassThroughOwnership).
 */
@Injectable()
export class VendorPassThroughRoutes implements OnModuleInit {
  private readonly pricedBatches = new Set<string>();

  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly accounting: CallAccounting,
    private readonly prices: ModelPrices,
    private readonly metrics: GatewayMetrics,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly ownership: PassThroughOwnership,
    private readonly guardrails: Guardrails,
  ) {}

  onModuleInit(): void {
    for (const adapter of providerAdapters()) {
      const api = adapter.passThrough;
      if (!api) continue;
      const prefix = `/${api.route}`;
      this.routes.add({
        route: `${prefix}/{path}`,
        endpoints: [{ methods: ['*'], path: `${prefix}/{path*}` }],
        matches: (_method, path) => path === prefix || path.startsWith(`${prefix}/`),
        handle: (request, response, path) => this.pass(adapter.provider, api, request, response, path.slice(prefix.length) || '/'),
      });
      // The vendor's paths that the gateway serves at its root as well (Anthropic's Skills API).
      for (const root of api.rootRoutes?.paths ?? []) {
        this.routes.add({
          route: root,
          endpoints: [
            { methods: ['*'], path: root },
            { methods: ['*'], path: `${root}/{path*}` },
          ],
          matches: (_method, path) => path === root || path.startsWith(`${root}/`),
          handle: (request, response, path) => this.pass(adapter.provider, api, request, response, path, api.rootRoutes?.defaultHeaders ?? {}),
        });
      }
    }
  }

  /**
   * A model call's body under the guardrails: its JSON read (the ownership check's bytes, or the
   * request's), checked and masked; the bytes to send (new ones when masked). A body that is no
   * JSON object is none of the family's requests: it goes on as it came, unchecked by them.
   */
  private async guarded(
    codec: EndpointCodec,
    caller: GatewayCaller,
    request: IncomingMessage,
    read: Buffer | undefined,
    deployment: GatewayDeployment,
  ): Promise<{ bytes: Buffer; guarded: GuardedPassThrough | undefined } | undefined> {
    let bytes = read;
    if (!bytes) {
      if (!hasBody(request)) return undefined;
      const body = await readRequestBody(request, MAX_REQUEST_BYTES);
      if (!('bytes' in body)) return undefined;
      bytes = body.bytes;
    }
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      return { bytes, guarded: undefined };
    }
    if (!isObject(json)) return { bytes, guarded: undefined };
    const guarded = await this.guardrails.passThrough({ codec, caller, body: json, headers: request.headers, alias: deployment.alias, keepsAnswer: false }, deployment);
    return { bytes: guarded && guarded.body !== json ? Buffer.from(JSON.stringify(guarded.body), 'utf8') : bytes, guarded };
  }

  /** A JSON answer the guardrails check: read whole, rewritten (masked) or refused in the family's envelope, priced either way. */
  private async guardedAnswer(
    rewrite: NonNullable<GuardedPassThrough['rewrite']>,
    upstream: UpstreamResponse,
    body: AsyncIterable<Buffer>,
    call: GuardedAnswerCall,
  ): Promise<void> {
    const { envelope, response, admission, deployment, meter } = call;
    const alias = deployment.alias;
    let status = upstream.statusCode;
    let failure: string | null = null;
    try {
      const bytes = await readAll(body, MAX_GUARDED_ANSWER_BYTES);
      meter?.push(bytes);
      let sent = bytes;
      const document = JSON.parse(bytes.toString('utf8')) as unknown;
      if (isObject(document)) {
        const next = await rewrite(document);
        if (next) sent = Buffer.from(JSON.stringify(next), 'utf8');
      }
      const headers = answerHeaders(upstream.headers);
      delete headers['content-length'];
      response.writeHead(status, {
        ...headers,
        ...admission.rateLimitHeaders,
        'x-arbor-call-id': randomUUID(),
        'x-arbor-model-id': deployment.id,
        'content-length': String(sent.length),
      });
      response.end(sent);
    } catch (error) {
      failure = error instanceof ProviderError ? (error.code ?? error.type) : 'pass_through_error';
      status = error instanceof ProviderError ? error.status : 502;
      if (!call.abort.aborted) sendError(envelope, response, error);
    }
    // A refused answer costs what the upstream used, as in the pipeline.
    const { usage, cost } = meter ? meter.result() : { usage: NO_USAGE, cost: 0 };
    admission.settle({ alias, deployment, usage, cost, failed: failure !== null });
    this.metrics.call({
      alias,
      deployment,
      status,
      errorCode: failure,
      seconds: (performance.now() - call.started) / 1000,
      usage,
      cost,
      retries: 0,
      fallbacks: 0,
      requestedAlias: alias,
    });
  }

  /** How the answer to `method path` is priced: a model call of a family the provider serves, a batch's results, or not at all. */
  private meterFor(provider: string, api: PassThroughApi, method: string, path: string, contentType: string, deployment: GatewayDeployment): AnswerMeter | undefined {
    const price = (model: string, usage: CallUsage) => this.prices.costOfModel(provider, model, usage);
    if (method === 'POST') {
      const codec = nativeCodecs(provider).find((candidate) => candidate.paths.includes(path));
      return codec ? new UsageMeter(codec, contentType, this.settings, price, deployment.model) : undefined;
    }
    const batch = api.batchResults;
    if (method !== 'GET' || !batch?.path.test(path)) return undefined;
    return this.pricedBatches.has(`${deployment.id} ${path}`)
      ? undefined
      : new BatchResultsMeter(nativeCodecs(provider), price, providerAdapterFor(provider)?.batchPriceFactor ?? 1);
  }

  /**
   * `atRoot`: the request came to the gateway's root (`/v1/skills`), not to `/<vendor>`: it goes to
   * the first of the vendor's deployments the key may use, with the headers given when the client
   * sent none of its own.
   */
  private async pass(
    provider: string,
    api: PassThroughApi,
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    atRoot?: Readonly<Record<string, string>>,
  ): Promise<void> {
    const envelope = clientCodec(request.headers);
    const started = performance.now();
    let admission: CallAdmission | undefined;
    let deployment: GatewayDeployment | undefined;
    let ownership: OwnershipPlan;
    let target: UpstreamTarget;
    let guarded: GuardedPassThrough | undefined;
    let family: EndpointCodec | undefined;
    const method = request.method ?? 'GET';
    try {
      const caller = await this.authentication.caller(request);
      const ofProvider = this.settings.deployments.filter((candidate) => candidate.provider === provider);
      deployment = (atRoot ? ofProvider.find((candidate) => mayUseAlias(caller, candidate.alias)) : undefined) ?? ofProvider[0];
      if (!deployment) throw passThroughNotConfigured(api.route, provider);
      if (!mayUseAlias(caller, deployment.alias)) throw keyModelAccessDenied(deployment.alias);
      // Refuses a path that would leave the provider's base before anything is checked, counted or sent.
      target = api.target(deployment, path, searchOf(request.url));
      const codec = method === 'POST' ? nativeCodecs(provider).find((candidate) => candidate.paths.includes(path)) : undefined;
      ownership = await this.ownership.check(caller, api, request, { method, path, modelCall: codec !== undefined }, deployment);
      // Before the limits, as the pipeline's: a refused call costs the caller nothing.
      if (codec && this.guardrails.on) {
        const checked = await this.guarded(codec, caller, request, ownership.body, deployment);
        guarded = checked?.guarded;
        family = codec;
        if (checked) ownership = { ...ownership, body: checked.bytes };
      }
      admission = await this.accounting.admit(caller, deployment.alias, undefined, request.headers);
    } catch (error) {
      request.resume();
      return sendError(envelope, response, error);
    }

    const abort = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) abort.abort(new Error('client disconnected'));
    });
    const alias = deployment.alias;
    const sentHeaders = { ...atRoot, ...passThroughHeaders(request.headers), ...target.headers };
    // A body the guardrails masked is not the length the client said.
    if (ownership.body) sentHeaders['content-length'] = String(ownership.body.length);
    let upstream: UpstreamResponse;
    try {
      upstream = await sendUpstream({
        url: target.url,
        method,
        // No accept-encoding: the answer comes uncompressed, so that its usage can be read on the way.
        headers: sentHeaders,
        ...(ownership.body ? { body: ownership.body } : hasBody(request) ? { body: request } : {}),
        signal: abort.signal,
        timeoutMs: deployment.timeoutMs ?? this.settings.router.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
      });
    } catch (error) {
      admission.settle({ alias, deployment, usage: NO_USAGE, cost: 0, failed: true });
      if (abort.signal.aborted) return;
      return sendError(envelope, response, error);
    }

    const meter = upstream.statusCode < 300 ? this.meterFor(provider, api, method, path, String(upstream.headers['content-type'] ?? ''), deployment) : undefined;
    const rewrite = guarded?.rewrite;
    if (rewrite && upstream.statusCode >= 200 && upstream.statusCode < 300 && String(upstream.headers['content-type'] ?? '').includes('json')) {
      // A model call's answer names no list to page through.
      const body = ownership.answer(upstream.statusCode, upstream.body, () => Promise.reject(new Error('a model call has no pages')));
      return this.guardedAnswer(rewrite, upstream, body, { envelope, response, admission, deployment, meter, started, abort: abort.signal });
    }
    const headers = answerHeaders(upstream.headers);
    if (ownership.rewritesAnswer) delete headers['content-length'];
    response.writeHead(upstream.statusCode, {
      ...headers,
      ...admission.rateLimitHeaders,
      'x-arbor-call-id': randomUUID(),
      'x-arbor-model-id': deployment.id,
    });
    let broken = false;
    try {
      // A list the ownership filter left short is filled from the upstream's next pages: the same request, another query.
      const served = deployment;
      const nextPage = (query: string) =>
        sendUpstream({
          url: api.target(served, path, query).url,
          method: 'GET',
          headers: sentHeaders,
          signal: abort.signal,
          timeoutMs: served.timeoutMs ?? this.settings.router.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
        });
      const answer = ownership.answer(upstream.statusCode, upstream.body, nextPage);
      const events = guarded?.events;
      // A stream the guardrails check passes event by event through them; its refusal is the family's error event.
      const streamed =
        guarded && events && family && upstream.statusCode < 300 && String(upstream.headers['content-type'] ?? '').includes('text/event-stream')
          ? guardedStream(answer, { ...guarded, events }, errorEventOf(family, guarded.body, this.settings))
          : answer;
      for await (const chunk of streamed) {
        meter?.push(chunk);
        if (!response.write(chunk)) await once(response, 'drain', { signal: abort.signal });
      }
      response.end();
    } catch {
      broken = true;
      response.destroy();
    }
    const failed = broken || upstream.statusCode >= 400;
    const { usage, cost } = meter && !failed ? meter.result() : { usage: NO_USAGE, cost: 0 };
    if (meter instanceof BatchResultsMeter && !failed) {
      if (this.pricedBatches.size >= MAX_PRICED_BATCHES) this.pricedBatches.clear();
      this.pricedBatches.add(`${deployment.id} ${path}`);
    }
    admission.settle({ alias, deployment, usage, cost, failed });
    this.metrics.call({
      alias,
      deployment,
      status: broken ? 502 : upstream.statusCode,
      errorCode: failed ? 'pass_through_error' : null,
      seconds: (performance.now() - started) / 1000,
      usage,
      cost,
      retries: 0,
      fallbacks: 0,
      requestedAlias: alias,
    });
  }
}

/** What a guarded JSON answer needs of its pass-through call. */
interface GuardedAnswerCall {
  envelope: EndpointCodec;
  response: ServerResponse;
  admission: CallAdmission;
  deployment: GatewayDeployment;
  meter: AnswerMeter | undefined;
  started: number;
  abort: AbortSignal;
}

/** How `codec` ends a stream it refused (with what its tap of the request knows). */
function errorEventOf(codec: EndpointCodec, body: Record<string, unknown>, settings: GatewaySettings): (error: ProviderError) => string {
  return (error) => codec.streamErrorEvent(error, codec.streamTap(body, settings));
}

/** The families the provider serves itself, whose usage its answers may report. */
function nativeCodecs(provider: string): EndpointCodec[] {
  return ENDPOINT_CODECS.filter((codec) => nativeOperation(provider, codec.operation) !== undefined);
}

/** The query string of a request target (`?limit=2`), or ''. */
function searchOf(url: string | undefined): string {
  const start = url?.indexOf('?') ?? -1;
  return start < 0 ? '' : (url as string).slice(start);
}

// The answer passes on as the vendor framed it: only its hop is dropped.
function answerHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  return headersForNextHop(headers);
}
