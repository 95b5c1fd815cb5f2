import type { IncomingHttpHeaders } from 'node:http';

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

/** The family A operations a provider may serve. */
export type ProviderOperation = 'chat' | 'completions' | 'embeddings';

export interface ProviderCall {
  deployment: ProviderDeployment;
  /**
   * The family A request body (OpenAI's shape) with the gateway's own fields removed; `model` is
   * still the alias. For chat and completions with `stream: true`, the gateway always sets
   * `stream_options.include_usage: true`: every adapter must then end its stream with a usage
   * chunk (`choices: []`, `usage: {...}`), as OpenAI does, so that spend is right.
   */
  body: Record<string, unknown>;
  /** Aborted when the client goes away, so the upstream stops generating (and billing). */
  signal: AbortSignal;
}

/**
 * A successful upstream answer whose body is not read yet: the gateway streams it to the client.
 * `body` yields family A bytes: a JSON document, or for streamed calls Server-Sent Events
 * (`data: <chunk JSON>\n\n` … `data: [DONE]\n\n`). Pass-through adapters hand over the upstream
 * body untouched; translating adapters produce those bytes. A failure after the answer began
 * (the upstream broke off, or sent an error event) destroys `body` with a ProviderError, which the
 * gateway sends on as a final family A error event.
 */
export interface ProviderAnswer {
  status: number;
  /** The upstream's own response headers: repeated to the client as `llm_provider-<name>`. */
  headers: IncomingHttpHeaders;
  /** `application/json` or `text/event-stream`. */
  contentType: string;
  /** The upstream's body as it arrives (passed through), or the translated one (a Node stream). */
  body: AsyncIterable<Buffer | string>;
}

/**
 * What every provider folder exports. The router picks an adapter by the provider prefix of a
 * deployment and never learns anything else about it. Non-2xx answers reject with ProviderError,
 * already mapped to family A. An operation the provider does not have is absent: the gateway then
 * answers 400 naming the provider.
 */
export interface ProviderAdapter {
  readonly provider: string;
  /** Family A parameters each operation accepts, as data, so that drop_params can be honest. */
  readonly params: Readonly<Partial<Record<ProviderOperation, ReadonlySet<string>>>>;
  chatCompletions(call: ProviderCall): Promise<ProviderAnswer>;
  /** POST /v1/completions (legacy text completions). */
  completions?(call: ProviderCall): Promise<ProviderAnswer>;
  /** POST /v1/embeddings; `input` may be a string or a list of strings (or token arrays). */
  embeddings?(call: ProviderCall): Promise<ProviderAnswer>;
}
