import type { ListPrice, ProviderAdapter } from '../lib/provider-adapter';
import { rerankOperation } from '../lib/rerank';

/** Voyage AI (`voyage/rerank-2.5`): its rerank API (`top_k`, `truncation`), billed by tokens. */
export const voyageAdapter: ProviderAdapter = {
  provider: 'voyage',
  operations: { rerank: rerankOperation({ provider: 'voyage', wire: 'voyage', apiBase: 'https://api.voyageai.com', extraParams: ['truncation'] }) },
  settings: { params: ['api_base', 'api_key'], env: { api_key: 'VOYAGE_API_KEY' } },
  prices: new Map<string, ListPrice>([
    ['rerank-2.5', { input: 0.05, output: 0 }],
    ['rerank-2.5-lite', { input: 0.02, output: 0 }],
    ['rerank-2', { input: 0.05, output: 0 }],
    ['rerank-2-lite', { input: 0.02, output: 0 }],
  ]),
};
