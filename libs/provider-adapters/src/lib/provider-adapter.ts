import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** One upstream model as the configuration names it (`openai/gpt-4o` → provider `openai`, model `gpt-4o`). */
export interface ProviderDeployment {
  provider: string;
  model: string;
  apiBase?: string;
  apiKey?: string;
  apiVersion?: string;
  /** Whole-call limit; undefined means the adapter's default. */
  timeoutMs?: number;
}

export interface ChatCompletionCall {
  deployment: ProviderDeployment;
  /** The family A request body as the client sent it; `model` is still the alias. */
  body: Record<string, unknown>;
  /** Aborted when the client goes away, so the upstream stops generating (and billing). */
  signal: AbortSignal;
}

/** A successful upstream answer, body not yet read: the gateway streams it to the client. */
export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

/**
 * What every provider folder exports. The router picks an adapter by the provider prefix of a
 * deployment and never learns anything else about it. Non-2xx answers reject with ProviderError,
 * already mapped to family A.
 */
export interface ProviderAdapter {
  readonly provider: string;
  /** Parameters of POST /v1/chat/completions this provider accepts: data, so drop_params can be honest. */
  readonly chatCompletionParams: ReadonlySet<string>;
  chatCompletions(call: ChatCompletionCall): Promise<UpstreamAnswer>;
}
