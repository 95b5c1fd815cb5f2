import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderDeployment } from './provider-deployment';
import type { PassThroughApi, RealtimeApi } from './upstream-target';

export type { ProviderDeployment } from './provider-deployment';

/**
 * What a caller may ask of a provider, each the operation of one endpoint family's wire format:
 * OpenAI's chat completions, completions, embeddings, responses (and their compaction and token
 * count); Anthropic's messages and its token count; OpenAI's images, audio and moderations; Cohere's rerank (the gateway's rerank extension).
 */
export type ProviderOperation =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'responses'
  | 'responses_compact'
  | 'responses_input_tokens'
  | 'messages'
  | 'count_tokens'
  | 'image_generation'
  | 'image_edit'
  | 'audio_transcription'
  | 'audio_speech'
  | 'moderation'
  | 'rerank';

export interface ProviderCall {
  deployment: ProviderDeployment;
  /**
   * The request body in the operation's own wire format, with the gateway's own fields removed;
   * `model` is still the alias. Multipart operations (image edits, transcriptions) get their text
   * fields as strings and their files as `UploadedFile`s (on disk, streamed to the upstream). For chat and completions with `stream: true`, the gateway always
   * sets `stream_options.include_usage: true`: every adapter must then end its stream with a
   * usage chunk (`choices: []`, `usage: {...}`), as OpenAI does, so that spend is right.
   */
  body: Record<string, unknown>;
  /** The client's request headers the operation passes on (Anthropic's `anthropic-version`, `anthropic-beta`). */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** Aborted when the client goes away, so the upstream stops generating (and billing). */
  signal: AbortSignal;
}

/**
 * A successful upstream answer whose body is not read yet: the gateway streams it to the client.
 * `body` yields bytes of the operation's wire format: a JSON document, or for streamed calls
 * Server-Sent Events. Pass-through adapters hand over the upstream body untouched; translating
 * adapters produce those bytes. A failure after the answer began (the upstream broke off, or sent
 * an error event) destroys `body` with a ProviderError, which the gateway sends on as a final
 * error event of the endpoint family.
 */
export interface ProviderAnswer {
  status: number;
  /** The upstream's own response headers: repeated to the client as `llm_provider-<name>`. */
  headers: IncomingHttpHeaders;
  /** `application/json` or `text/event-stream` (or what the upstream said: `text/plain`, `audio/mpeg`…). */
  contentType: string;
  /** The upstream's body as it arrives (passed through), or the translated one (a Node stream). */
  body: AsyncIterable<Buffer | string>;
}

/**
 * How an operation treats request fields outside its `params`. `forwarded`: sent on unchanged, the
 * upstream judges them (a pass-through provider whose API is the endpoint family's own: OpenAI,
 * Azure OpenAI; a parameter OpenAI documents tomorrow works today). `refused`: 400 naming the
 * field, or removed under drop_params (translated providers, whose support list is what they
 * honour). `dropped`: removed silently (Anthropic's own API, where the gateway keeps to the fields
 * it knows whatever the client sends).
 */
export type UnknownParams = 'forwarded' | 'refused' | 'dropped';

/** One operation a provider serves natively: the request parameters it takes, as data, and the call. */
export interface NativeOperation {
  /** Top-level request fields the operation honours, so that drop_params can be honest. */
  readonly params: ReadonlySet<string>;
  /**
   * The fields honoured on one deployment, where they depend on its model (Vertex AI serves
   * Gemini and Claude under one prefix); `params` (their union) otherwise.
   */
  paramsFor?(deployment: ProviderDeployment): ReadonlySet<string>;
  /** What becomes of a request field outside `params` (see UnknownParams); `refused` when not said. */
  readonly unknownParams?: UnknownParams;
  call(call: ProviderCall): Promise<ProviderAnswer>;
}

/** A list price in USD per million tokens, as providers publish them. */
export interface ListPrice {
  input: number;
  output: number;
  /** Prompt tokens read from the provider's cache. */
  cacheRead?: number;
  /** Prompt tokens written to the provider's cache (five-minute lifetime, for Anthropic). */
  cacheWrite?: number;
  /** Prompt tokens written to Anthropic's one-hour cache. */
  oneHourCacheWrite?: number;
  /**
   * USD per image generated: one price, or by `<quality>/<size>` (`hd/1024x1792`), `<size>` or
   * `<quality>`, the most specific found first (`default` when none matches).
   */
  perImage?: number | Readonly<Record<string, number>>;
  /** USD per second of audio transcribed. */
  perSecond?: number;
  /** USD per character of text spoken. */
  perCharacter?: number;
  /** Audio prompt tokens (realtime models). */
  audioInput?: number;
  /** Audio completion tokens (realtime models). */
  audioOutput?: number;
  /** USD per search (not per million): rerank APIs billed by the query, as Cohere's search units. */
  perQuery?: number;
}

/** The `litellm_params` a provider reads beyond the gateway's own (`model`, `rpm`, `tpm`, `timeout`). */
export interface ProviderSettings {
  /** Keys it accepts (`api_base`, `api_key`, `api_version`, …). */
  readonly params: readonly string[];
  /** Keys it cannot do without, each with what to put there. */
  readonly required?: Readonly<Record<string, string>>;
  /**
   * The environment variable read when a key is not given, as LiteLLM reads them
   * (`api_key` ← `MISTRAL_API_KEY`); a required key set there is not missing.
   */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * What every provider folder exports. The gateway picks an adapter by the provider prefix of a
 * deployment and learns everything else from here: the operations it serves natively (an
 * endpoint family whose operation is absent is bridged through `chat` where it can be, else
 * refused with 400 naming the provider), the configuration it reads, and its list prices.
 * Non-2xx answers reject with ProviderError.
 */
export interface ProviderAdapter {
  readonly provider: string;
  readonly operations: Readonly<Partial<Record<ProviderOperation, NativeOperation>>>;
  readonly settings: ProviderSettings;
  /** List prices by model name without date suffix; the gateway's price map and `model_info` win over them. */
  readonly prices: ReadonlyMap<string, ListPrice>;
  /** How LiteLLM's model map names it, for model names given without a provider prefix. */
  readonly litellm?: LiteLlmNaming;
  /** The share of the list price a batch costs, where the vendor's Batch API is discounted (OpenAI, Azure OpenAI, Anthropic: half); none: the list price. */
  readonly batchPriceFactor?: number;
  /** The vendor's whole API under `/<route>/…`, when the gateway offers it as a pass-through. */
  readonly passThrough?: PassThroughApi;
  /** Its realtime WebSocket, for deployments of realtime models. */
  readonly realtime?: RealtimeApi;
  /** Where the provider keeps stored resources (files, batches, vector stores, assistants), when it serves them. */
  readonly resources?: (deployment: ProviderDeployment, path: string) => ResourceTarget;
}

/** How LiteLLM's model map names a provider (its `litellm_provider` values, its rank in get_llm_provider). */
export interface LiteLlmNaming {
  /** Other `litellm_provider` values that mean this provider (`cohere_chat`); a last `*` matches any ending (`vertex_ai-*`). */
  readonly providerNames?: readonly string[];
  /** Its rank when several providers know a model name, lowest first (LiteLLM: first-party vendors first); unranked providers come after. */
  readonly precedence?: number;
}

/** The URL and auth headers of a stored-resource path (`/files/file-abc/content`) on one deployment's account. */
export interface ResourceTarget {
  url: URL;
  headers: Record<string, string>;
}
