import { asList, ParameterMap, parameterNames } from '../lib/parameter-map';

/**
 * The chat-completion parameters generateContent honours and where each goes; the `translated`
 * ones are gemini.request.ts's code. Anything else is not sent on (refused or dropped by drop_params).
 */
export const GEMINI_CHAT_PARAMETERS: ParameterMap = {
  rules: {
    model: 'translated',
    messages: 'translated',
    stream: 'translated',
    stream_options: 'translated',
    temperature: { to: 'generationConfig.temperature' },
    top_p: { to: 'generationConfig.topP' },
    n: { to: 'generationConfig.candidateCount' },
    seed: { to: 'generationConfig.seed' },
    presence_penalty: { to: 'generationConfig.presencePenalty' },
    frequency_penalty: { to: 'generationConfig.frequencyPenalty' },
    max_tokens: { to: 'generationConfig.maxOutputTokens' },
    max_completion_tokens: { to: 'generationConfig.maxOutputTokens' },
    stop: { to: 'generationConfig.stopSequences', convert: asList },
    response_format: 'translated',
    tools: 'translated',
    tool_choice: 'translated',
    reasoning_effort: 'translated',
    // OpenAI's web search for chat, as Google Search grounding.
    web_search_options: 'translated',
  },
};

export const GEMINI_CHAT_PARAMS: ReadonlySet<string> = parameterNames(GEMINI_CHAT_PARAMETERS);

/** batchEmbedContents takes text and an output size; `encoding_format` is done by the adapter. */
export const GEMINI_EMBEDDING_PARAMS: ReadonlySet<string> = new Set(['model', 'input', 'dimensions', 'encoding_format']);
