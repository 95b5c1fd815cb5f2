import { OPENAI_CHAT_COMPLETION_PARAMS, OPENAI_COMPLETION_PARAMS, OPENAI_EMBEDDING_PARAMS } from '../openai/openai.params';
import { openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';

// vLLM's sampling and structured-output extensions to OpenAI's requests.
const VLLM_EXTRAS = ['top_k', 'min_p', 'repetition_penalty', 'guided_json', 'guided_regex', 'guided_choice', 'guided_grammar', 'structured_outputs', 'chat_template_kwargs'];

/**
 * A vLLM server of your own (`hosted_vllm/<served model name>`): OpenAI's format plus vLLM's
 * sampling and guided-decoding fields, and rerank models; `api_base` (or HOSTED_VLLM_API_BASE) is required.
 */
export const hostedVllmAdapter = openAiCompatibleAdapter({
  provider: 'hosted_vllm',
  env: { api_base: 'HOSTED_VLLM_API_BASE', api_key: 'HOSTED_VLLM_API_KEY' },
  chat: { rules: sameNames(...OPENAI_CHAT_COMPLETION_PARAMS, ...VLLM_EXTRAS) },
  embeddings: { rules: sameNames(...OPENAI_EMBEDDING_PARAMS) },
  completions: { rules: sameNames(...OPENAI_COMPLETION_PARAMS, ...VLLM_EXTRAS) },
  // vLLM serves cross-encoder models at /v1/rerank, answering in Jina's shape.
  rerank: { wire: 'jina' },
});
