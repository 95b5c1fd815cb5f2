import { asList, parameterNames, type ParameterMap } from '../lib/parameter-map';

// Cohere's tool_choice is REQUIRED or NONE; OpenAI's `auto` is its default (the field left out).
const TOOL_CHOICES: Record<string, string> = { required: 'REQUIRED', none: 'NONE' };

/** OpenAI's response_format in Cohere's terms: `json_object`, with a JSON schema as `json_schema`. */
function responseFormat(value: unknown): unknown {
  const format = value as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type === 'json_schema') return { type: 'json_object', ...(format.json_schema?.schema ? { json_schema: format.json_schema.schema } : {}) };
  return undefined;
}

/**
 * How Cohere's chat v2 (POST /v2/chat) takes OpenAI-format's chat parameters: most under other names
 * (`top_p` → `p`, `stop` → `stop_sequences`); tools are OpenAI's shape already.
 */
export const COHERE_CHAT_PARAMETERS: ParameterMap = {
  rules: {
    model: 'translated',
    messages: 'translated',
    stream: 'translated',
    stream_options: 'translated',
    tools: {},
    tool_choice: { convert: (value) => (typeof value === 'string' ? TOOL_CHOICES[value] : undefined) },
    temperature: {},
    top_p: { to: 'p' },
    max_tokens: {},
    max_completion_tokens: { to: 'max_tokens' },
    stop: { to: 'stop_sequences', convert: asList },
    seed: {},
    frequency_penalty: {},
    presence_penalty: {},
    response_format: { convert: responseFormat },
    logprobs: {},
  },
};

export const COHERE_CHAT_PARAMS: ReadonlySet<string> = parameterNames(COHERE_CHAT_PARAMETERS);
