import type { ListPrice, ProviderAdapter } from '../lib/provider-adapter';
import { rerankOperation } from '../lib/rerank';

/** Jina AI (`jina/jina-reranker-v2-base-multilingual`): its rerank API, billed by tokens. */
export const jinaAdapter: ProviderAdapter = {
  provider: 'jina',
  operations: { rerank: rerankOperation({ provider: 'jina', wire: 'jina', apiBase: 'https://api.jina.ai' }) },
  settings: { params: ['api_base', 'api_key'], env: { api_key: 'JINA_AI_API_KEY' } },
  prices: new Map<string, ListPrice>([
    ['jina-reranker-v2-base-multilingual', { input: 0.018, output: 0 }],
    ['jina-reranker-m0', { input: 0.018, output: 0 }],
    ['jina-reranker-v1-base-en', { input: 0.018, output: 0 }],
  ]),
};
