import type { ListPrice, NativeOperation, ProviderAdapter, ProviderCall, ProviderDeployment } from '../lib/provider-adapter';
import { mapParameters, parameterNames, type ParameterMap } from '../lib/parameter-map';
import { rerankOperation, type RerankProvider } from '../lib/rerank';
import { endpointUrl, sendOpenAiShaped } from './openai.adapter';

/**
 * A server that speaks OpenAI's wire format and differs only in data: where it is, how it takes
 * the key, which parameters it honours (and under which names), what its models cost. Each such
 * provider's folder is one of these; the request code is OpenAI's.
 */
export interface OpenAiCompatibleProvider {
  /** The prefix in `litellm_params.model` (`groq/llama-3.3-70b-versatile`). */
  readonly provider: string;
  /**
   * The provider's own address, up to and including its version segment (`https://api.groq.com/openai/v1`),
   * taken as it is; absent for servers that have none (`hosted_vllm`): `api_base` is then required.
   * An `api_base` from the configuration is read as OpenAI's is (`/v1` added when it names no version).
   */
  readonly apiBase?: string;
  /** The environment variables read when the configuration names no key or base (`api_key`, `api_base`). */
  readonly env?: Readonly<Record<string, string>>;
  /** How the key is sent; `bearer` (the default): `Authorization: Bearer <key>`; otherwise the header named. */
  readonly keyHeader?: 'bearer' | string;
  /** Chat completion parameters honoured, as a parameter map (renames, conversions). */
  readonly chat: ParameterMap;
  /** Embedding parameters, when the provider serves OpenAI's /embeddings. */
  readonly embeddings?: ParameterMap;
  /** Completion parameters, when the provider serves OpenAI's legacy /completions. */
  readonly completions?: ParameterMap;
  /** Its rerank endpoint, when it serves one (Cohere's own, or a rerank server in Jina's shape). */
  readonly rerank?: Omit<RerankProvider, 'provider'>;
  /** List prices by model name, USD per million tokens. */
  readonly prices?: ReadonlyMap<string, ListPrice>;
  /** The `litellm_params` read beyond `api_base` and `api_key` (`api_version`). */
  readonly settings?: readonly string[];
  /** Where a configured `api_base` sends `path` (`/chat/completions`), when not as OpenAI's is read. */
  readonly endpoint?: (apiBase: string, path: string, deployment: ProviderDeployment) => URL;
}

/** The ProviderAdapter of an OpenAI-compatible provider described as data. */
export function openAiCompatibleAdapter(spec: OpenAiCompatibleProvider): ProviderAdapter & { operations: { chat: NativeOperation } } {
  const operation = (map: ParameterMap, path: string): NativeOperation => ({
    params: parameterNames(map),
    call: (call) => callCompatible(spec, map, call, path),
  });
  return {
    provider: spec.provider,
    operations: {
      chat: operation(spec.chat, '/chat/completions'),
      ...(spec.embeddings ? { embeddings: operation(spec.embeddings, '/embeddings') } : {}),
      ...(spec.completions ? { completions: operation(spec.completions, '/completions') } : {}),
      ...(spec.rerank ? { rerank: rerankOperation({ provider: spec.provider, ...spec.rerank }, spec.keyHeader) } : {}),
    },
    settings: {
      params: ['api_base', 'api_key', ...(spec.settings ?? [])],
      ...(spec.apiBase === undefined ? { required: { api_base: `the server's address, e.g. http://localhost:8000/v1` } } : {}),
      ...(spec.env ? { env: spec.env } : {}),
    },
    prices: spec.prices ?? new Map(),
  };
}

function callCompatible(spec: OpenAiCompatibleProvider, map: ParameterMap, call: ProviderCall, path: string) {
  const { deployment } = call;
  const headers: Record<string, string> = {};
  if (deployment.apiKey) {
    if (spec.keyHeader === undefined || spec.keyHeader === 'bearer') headers['authorization'] = `Bearer ${deployment.apiKey}`;
    else headers[spec.keyHeader] = deployment.apiKey;
  }
  const url =
    deployment.apiBase === undefined
      ? new URL(`${spec.apiBase ?? ''}${path}`)
      : spec.endpoint
        ? spec.endpoint(deployment.apiBase, path, deployment)
        : endpointUrl(deployment.apiBase, path);
  // Only the map's fields go on, under the provider's names; the gateway refused or dropped the others.
  const body = mapParameters(call.body, map);
  return sendOpenAiShaped({ ...call, body }, url, headers, { model: deployment.model });
}

/** A parameter map that sends each of `names` on under its own name. */
export function sameNames(...names: string[]): ParameterMap['rules'] {
  return Object.fromEntries(names.map((name) => [name, {}]));
}

/** OpenAI's chat parameters most compatible servers honour under OpenAI's names. */
export const COMMON_CHAT_PARAMETERS = [
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'response_format',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'user',
] as const;

/** `stream_options` for servers that report usage at the end of every stream unasked and refuse the field. */
export const USAGE_ALWAYS_STREAMED = { stream_options: 'translated' } as const;

/** `max_completion_tokens` for servers that only know `max_tokens`. */
export const MAX_TOKENS_ONLY = { max_completion_tokens: { to: 'max_tokens' } } as const;
