import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { readJsonAnswer } from './json-answer';
import type { NativeOperation, ProviderAnswer, ProviderCall } from './provider-adapter';
import { ProviderError } from './provider-error';
import { jsonBody } from './sse';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, readBody, sendUpstream, type UpstreamResponse } from './upstream-http';
import { keyHeaders, rootOf } from './upstream-target';

/**
 * The rerank wire formats the gateway speaks upstream. The gateway's own (its `/v1/rerank` and
 * `/v2/rerank`) is Cohere's; every answer comes back in it: `{id, results: [{index,
 * relevance_score, document?}], meta: {billed_units}}`, `document` added from the request's own
 * documents when `return_documents` is true (as Cohere's v1 does; its v2 returns none).
 * - `cohere`: `POST /v2/rerank`, billed by search units.
 * - `jina`: `POST /v1/rerank` (Jina AI, and vLLM / OpenAI-compatible rerank servers, which answer
 *   in its shape), billed by tokens.
 * - `voyage`: `POST /v1/rerank` with `top_k`, answered as a `data` list, billed by tokens.
 */
export type RerankWire = 'cohere' | 'jina' | 'voyage';

export interface RerankProvider {
  readonly provider: string;
  readonly wire: RerankWire;
  /** The provider's root address (`https://api.jina.ai`); none: `api_base` is required. */
  readonly apiBase?: string;
  /** What a configured `api_base` may end in beyond the root (`/v1`, Cohere's `/compatibility/v1`). */
  readonly apiBaseSuffix?: RegExp;
  /** Request fields honoured, beyond `model`, `query`, `documents`, `top_n`, `return_documents`. */
  readonly extraParams?: readonly string[];
}

/** The gateway's rerank request, checked. */
interface RerankRequest {
  query: string;
  /** Texts; Cohere v1's `{text}` objects read as their text, other objects as JSON. */
  documents: string[];
  topN?: number;
  returnDocuments: boolean;
  extras: Record<string, unknown>;
}

const document = z.union([z.string(), z.record(z.string(), z.unknown())]);
const rerankRequest = z
  .object({
    query: z.string().min(1),
    documents: z.array(document).min(1),
    top_n: z.number().int().positive().optional(),
    return_documents: z.boolean().optional(),
  })
  .loose();

const PATHS: Record<RerankWire, string> = { cohere: '/v2/rerank', jina: '/v1/rerank', voyage: '/v1/rerank' };

const scored = z.object({ index: z.number().int().nonnegative(), relevance_score: z.number() }).loose();
const cohereAnswer = z.object({ id: z.string().optional(), results: z.array(scored), meta: z.record(z.string(), z.unknown()).optional() }).loose();
const jinaAnswer = z
  .object({ results: z.array(scored), usage: z.object({ total_tokens: z.number().optional(), prompt_tokens: z.number().optional() }).loose().optional() })
  .loose();
const voyageAnswer = z.object({ data: z.array(scored), usage: z.object({ total_tokens: z.number().optional() }).loose().optional() }).loose();

/** The `rerank` operation of a provider speaking one of the rerank wire formats. */
export function rerankOperation(spec: RerankProvider, keyHeader: 'bearer' | string = 'bearer'): NativeOperation {
  return {
    params: new Set(['model', 'query', 'documents', 'top_n', 'return_documents', ...(spec.extraParams ?? [])]),
    call: (call) => rerank(spec, keyHeader, call),
  };
}

async function rerank(spec: RerankProvider, keyHeader: string, call: ProviderCall): Promise<ProviderAnswer> {
  const { deployment } = call;
  const request = readRequest(call.body, spec);
  const base = deployment.apiBase ?? spec.apiBase;
  if (base === undefined) throw new ProviderError(500, 'server_error', `The ${spec.provider} deployment "${deployment.model}" has no api_base.`, 'provider_misconfigured');
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...keyHeaders(keyHeader, deployment.apiKey) };
  const response = await sendUpstream({
    url: new URL(`${rootOf(base, spec.apiBaseSuffix ?? /\/v\d+$/)}${PATHS[spec.wire]}`),
    method: 'POST',
    headers,
    body: Buffer.from(JSON.stringify(upstreamRequest(spec.wire, request, deployment.model))),
    signal: call.signal,
    timeoutMs: deployment.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  });
  if (response.statusCode < 200 || response.statusCode >= 300) throw await rerankError(response, spec.provider);
  const answer = await cohereShaped(spec, response, request);
  return { status: 200, headers: response.headers, contentType: 'application/json', body: jsonBody(answer) };
}

function readRequest(body: Record<string, unknown>, spec: RerankProvider): RerankRequest {
  const parsed = rerankRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path[0] === undefined ? null : String(issue.path[0]);
    throw new ProviderError(400, 'invalid_request_error', `Invalid rerank request: ${param ?? 'body'}: ${issue?.message ?? 'not a rerank request'}.`, 'invalid_value', param);
  }
  const { query, documents, top_n: topN, return_documents: returnDocuments } = parsed.data;
  const extras: Record<string, unknown> = {};
  for (const name of spec.extraParams ?? []) if (body[name] !== undefined) extras[name] = body[name];
  return {
    query,
    documents: documents.map((item) => (typeof item === 'string' ? item : typeof item['text'] === 'string' ? item['text'] : JSON.stringify(item))),
    ...(topN !== undefined ? { topN } : {}),
    returnDocuments: returnDocuments === true,
    extras,
  };
}

function upstreamRequest(wire: RerankWire, request: RerankRequest, model: string): Record<string, unknown> {
  const { query, documents, topN, extras } = request;
  if (wire === 'voyage') return { model, query, documents, ...(topN !== undefined ? { top_k: topN } : {}), ...extras };
  // The documents are the gateway's to return (from the request): the upstream need not send them back.
  return { model, query, documents, ...(topN !== undefined ? { top_n: topN } : {}), ...(wire === 'jina' ? { return_documents: false } : {}), ...extras };
}

async function cohereShaped(spec: RerankProvider, response: UpstreamResponse, request: RerankRequest): Promise<Record<string, unknown>> {
  const withDocument = (result: z.infer<typeof scored>) => ({
    index: result.index,
    relevance_score: result.relevance_score,
    ...(request.returnDocuments && request.documents[result.index] !== undefined ? { document: { text: request.documents[result.index] } } : {}),
  });
  if (spec.wire === 'cohere') {
    const answer = await readJsonAnswer(response, cohereAnswer, spec.provider);
    return { id: answer.id ?? randomUUID(), results: answer.results.map(withDocument), meta: answer.meta ?? { api_version: { version: '2' } } };
  }
  const { results, tokens } =
    spec.wire === 'jina'
      ? await readJsonAnswer(response, jinaAnswer, spec.provider).then((answer) => ({
          results: answer.results,
          tokens: answer.usage?.total_tokens ?? answer.usage?.prompt_tokens ?? 0,
        }))
      : await readJsonAnswer(response, voyageAnswer, spec.provider).then((answer) => ({ results: answer.data, tokens: answer.usage?.total_tokens ?? 0 }));
  // Sorted by relevance as Cohere answers (Voyage and Jina do too; a server that does not is put right).
  const ordered = [...results].sort((a, b) => b.relevance_score - a.relevance_score);
  return {
    id: randomUUID(),
    results: ordered.map(withDocument),
    meta: { api_version: { version: '2' }, billed_units: { input_tokens: tokens }, tokens: { input_tokens: tokens, output_tokens: 0 } },
  };
}

const STATUSES_KEPT = new Set([400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504]);

/** A rerank provider's error (Cohere's `{message}`, Jina's and Voyage's `{detail}`, vLLM's OpenAI envelope) as ProviderError. */
async function rerankError(response: UpstreamResponse, provider: string): Promise<ProviderError> {
  const status = response.statusCode;
  const text = await readBody(response.body, 65_536).catch(() => '');
  let message = `${provider} answered ${status}.`;
  try {
    const parsed = JSON.parse(text) as { message?: unknown; detail?: unknown; error?: { message?: unknown } };
    const found = parsed.message ?? parsed.error?.message ?? parsed.detail;
    if (typeof found === 'string') message = found;
    else if (found !== undefined) message = JSON.stringify(found);
  } catch {
    // Not JSON: the status says what happened.
  }
  const kept = STATUSES_KEPT.has(status) ? status : status >= 500 ? 502 : 400;
  const headers: Record<string, string> = {};
  const retryAfter = response.headers['retry-after'];
  if (typeof retryAfter === 'string') headers['retry-after'] = retryAfter;
  const type = kept === 401 ? 'authentication_error' : kept === 429 ? 'rate_limit_error' : kept >= 500 ? 'server_error' : 'invalid_request_error';
  const code = kept === 401 ? 'invalid_api_key' : kept === 429 ? 'rate_limit_exceeded' : null;
  return new ProviderError(kept, type, message, code, null, headers);
}
