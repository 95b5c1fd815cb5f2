import type { ListPrice } from '../lib/provider-adapter';
import { COMMON_CHAT_PARAMETERS, openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';

/** GroqCloud (`groq/llama-3.3-70b-versatile`): OpenAI's format, with Groq's reasoning controls. */
export const groqAdapter = openAiCompatibleAdapter({
  provider: 'groq',
  apiBase: 'https://api.groq.com/openai/v1',
  env: { api_key: 'GROQ_API_KEY' },
  chat: { rules: sameNames(...COMMON_CHAT_PARAMETERS, 'n', 'reasoning_effort', 'reasoning_format', 'include_reasoning', 'service_tier') },
  prices: new Map<string, ListPrice>([
    ['llama-3.3-70b-versatile', { input: 0.59, output: 0.79 }],
    ['llama-3.1-8b-instant', { input: 0.05, output: 0.08 }],
    ['openai/gpt-oss-120b', { input: 0.15, output: 0.75 }],
    ['openai/gpt-oss-20b', { input: 0.1, output: 0.5 }],
  ]),
});
