import { asList, ParameterMap, parameterNames } from '../lib/parameter-map';

/**
 * The chat-completion parameters Converse honours and where each goes (the `translated` ones are
 * bedrock.converse.ts's code). `top_k` is not in Converse's own inference config: it goes in
 * `additionalModelRequestFields`, which the model family reads (Claude, Mistral, Cohere, Nova).
 * `guardrailConfig`, `performanceConfig` and `additionalModelRequestFields` are Bedrock's own and pass through.
 */
export const BEDROCK_CHAT_PARAMETERS: ParameterMap = {
  rules: {
    model: 'translated',
    messages: 'translated',
    stream: 'translated',
    stream_options: 'translated',
    max_tokens: { to: 'inferenceConfig.maxTokens' },
    max_completion_tokens: { to: 'inferenceConfig.maxTokens' },
    temperature: { to: 'inferenceConfig.temperature' },
    top_p: { to: 'inferenceConfig.topP' },
    stop: { to: 'inferenceConfig.stopSequences', convert: asList },
    top_k: { to: 'additionalModelRequestFields.top_k' },
    tools: 'translated',
    tool_choice: 'translated',
    // As a forced tool whose input is the answer (lib/response-format-tool.ts), as LiteLLM does on Converse.
    response_format: 'translated',
    reasoning_effort: 'translated',
    thinking: 'translated',
    guardrailConfig: {},
    performanceConfig: {},
    additionalModelRequestFields: 'translated',
  },
};

export const BEDROCK_CHAT_PARAMS: ReadonlySet<string> = parameterNames(BEDROCK_CHAT_PARAMETERS);

/** Titan and Cohere embeddings: the texts, Titan's output size, Cohere's input type. */
export const BEDROCK_EMBEDDING_PARAMS: ReadonlySet<string> = new Set(['model', 'input', 'dimensions', 'encoding_format', 'input_type']);

/** The `anthropic_version` Claude on Bedrock requires in an InvokeModel body. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
