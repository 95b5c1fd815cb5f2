import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DirectRoutes } from '@arbor/platform';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, nativeOperation, providerAdapters, sendUpstream, type PassThroughApi, type UpstreamResponse } from '@arbor/provider-adapters';
import { CallAccounting, type CallAdmission } from '../calls/call-accounting';
import { GatewayMetrics } from '../calls/gateway-metrics';
import { NO_USAGE } from '../calls/usage';
import type { GatewayDeployment } from '../config/gateway-config';
import { ANTHROPIC_MESSAGES } from '../endpoints/anthropic-messages/anthropic-messages.codec';
import { sendError, type EndpointCodec } from '../endpoints/endpoint-codec';
import { ENDPOINT_CODECS } from '../endpoints/endpoint-codecs';
import { OPENAI_CHAT } from '../endpoints/openai/openai-codecs';
import { keyModelAccessDenied, passThroughNotConfigured } from '../gateway-errors';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { GatewayAuthentication } from '../gateway-key.guard';
import { mayUseAlias } from '../keys/key-verifier';
import { ModelPrices } from '../pricing/model-prices';
import { UsageMeter } from './usage-meter';

// Hop-by-hop headers describe one connection, not the request; the client's key is swapped; the
// answer must come uncompressed so that its usage can be read on the way (the client still gets
// the upstream's bytes as they are).
const REQUEST_HEADERS_DROPPED = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'upgrade', 'expect', 'accept-encoding']);
const ANSWER_HEADERS_DROPPED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'trailer', 'upgrade']);

/**
 * The vendors' whole APIs 1:1 under `/<vendor>/…` (`/openai/v1/conversations`, `/anthropic/v1/files`),
 * for every provider folder that offers one (`passThrough`): the caller's virtual key checked, its
 * limits and budget applied, the key swapped for the provider key of the FIRST deployment of that
 * provider in `model_list` (the caller must be allowed that deployment's alias), and the request
 * and answer streamed both ways untouched. Calls of a model endpoint the gateway knows (chat
 * completions, completions, embeddings, responses, messages) are metered on the way: their usage
 * read from the answer or stream, priced by the model the vendor names in it, recorded as spend.
 * Nothing is routed elsewhere: no retries, no fallbacks.
 */
@Injectable()
export class PassThroughRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly authentication: GatewayAuthentication,
    private readonly accounting: CallAccounting,
    private readonly prices: ModelPrices,
    private readonly metrics: GatewayMetrics,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  onModuleInit(): void {
    for (const adapter of providerAdapters()) {
      const api = adapter.passThrough;
      if (!api) continue;
      const prefix = `/${api.route}`;
      this.routes.add({
        route: `${prefix}/{path}`,
        matches: (_method, path) => path === prefix || path.startsWith(`${prefix}/`),
        handle: (request, response, path) => this.pass(adapter.provider, api, request, response, path.slice(prefix.length) || '/'),
      });
    }
  }

  private async pass(provider: string, api: PassThroughApi, request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    // Anthropic's SDKs send anthropic-version: their errors come in the envelope they read.
    const envelope = request.headers['anthropic-version'] === undefined ? OPENAI_CHAT : ANTHROPIC_MESSAGES;
    const started = performance.now();
    let admission: CallAdmission | undefined;
    let deployment: GatewayDeployment | undefined;
    try {
      const caller = await this.authentication.caller(request);
      deployment = this.settings.deployments.find((candidate) => candidate.provider === provider);
      if (!deployment) throw passThroughNotConfigured(api.route, provider);
      if (!mayUseAlias(caller, deployment.alias)) throw keyModelAccessDenied(deployment.alias);
      admission = await this.accounting.admit(caller);
    } catch (error) {
      request.resume();
      return sendError(envelope, response, error);
    }

    const method = request.method ?? 'GET';
    const search = (request.url ?? '').includes('?') ? (request.url ?? '').slice((request.url ?? '').indexOf('?')) : '';
    const target = api.target(deployment, path, search);
    const metered = method === 'POST' ? meteredCodec(provider, path) : undefined;
    const abort = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) abort.abort(new Error('client disconnected'));
    });
    const alias = deployment.alias;
    let upstream: UpstreamResponse;
    try {
      upstream = await sendUpstream({
        url: target.url,
        method,
        headers: { ...forwarded(request.headers, api.clientKeyHeaders), ...target.headers },
        ...(hasBody(request) ? { body: request } : {}),
        signal: abort.signal,
        timeoutMs: deployment.timeoutMs ?? this.settings.router.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
      });
    } catch (error) {
      admission.settle({ alias, deployment, usage: NO_USAGE, cost: 0, failed: true });
      if (abort.signal.aborted) return;
      return sendError(envelope, response, error);
    }

    const contentType = String(upstream.headers['content-type'] ?? '');
    const meter = metered && upstream.statusCode < 300 ? new UsageMeter(metered, contentType, this.settings) : undefined;
    response.writeHead(upstream.statusCode, {
      ...answerHeaders(upstream.headers),
      ...admission.rateLimitHeaders,
      'x-arbor-call-id': randomUUID(),
      'x-arbor-model-id': deployment.id,
    });
    let broken = false;
    try {
      for await (const chunk of upstream.body) {
        meter?.push(chunk);
        if (!response.write(chunk)) await once(response, 'drain', { signal: abort.signal });
      }
      response.end();
    } catch {
      broken = true;
      response.destroy();
    }
    const usage = meter?.usage() ?? NO_USAGE;
    const failed = broken || upstream.statusCode >= 400;
    const cost = failed ? 0 : this.prices.costOfModel(provider, meter?.model ?? deployment.model, usage);
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

/** The family whose usage a POST to `path` reports, when the provider serves that family itself. */
function meteredCodec(provider: string, path: string): EndpointCodec | undefined {
  return ENDPOINT_CODECS.find((codec) => codec.paths.includes(path) && nativeOperation(provider, codec.operation) !== undefined);
}

function hasBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
}

function forwarded(headers: IncomingHttpHeaders, clientKeyHeaders: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || REQUEST_HEADERS_DROPPED.has(name) || clientKeyHeaders.includes(name)) continue;
    // undici frames a streamed body itself.
    if (name === 'transfer-encoding') continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function answerHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !ANSWER_HEADERS_DROPPED.has(name)) out[name] = value;
  return out;
}
