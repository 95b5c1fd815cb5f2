// Rerank (the gateway's extension in Cohere's format) on Cohere, Jina, Voyage and an
// OpenAI-compatible rerank server (vLLM), against tools/fake-providers speaking each vendor's wire
// format. Called as Cohere's SDK calls it: POST /v2/rerank (or /v1/rerank) with a bearer key.
import { asMaster, GatewayOnFakes, MASTER_KEY, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const DOCUMENTS = [
  'Carson City is the capital city of the American state of Nevada.',
  'Washington, D.C. is the capital of the United States.',
  'Capital punishment has existed in the United States since before it was a country.',
  'The weather in Paris is mild in spring.',
];
const QUERY = 'What is the capital of the United States?';
// The fake scores by the share of the query's words a document has: 1 (7 of 8), then 0 and 2 (5 of 8, in order).

interface RerankAnswer {
  id: string;
  results: { index: number; relevance_score: number; document?: { text: string } }[];
  meta: { billed_units?: { search_units?: number; input_tokens?: number } };
}

describe('rerank (Cohere format)', () => {
  let running: GatewayOnFakes;

  beforeAll(async () => {
    running = await startGatewayOnFakes(
      (fake) => `
model_list:
  - model_name: cohere-rerank
    litellm_params:
      model: cohere/rerank-v3.5
      api_base: ${fake}/cohere/compatibility/v1
      api_key: co-secret
  - model_name: cohere-limited
    litellm_params:
      model: cohere/fail-429
      api_base: ${fake}/cohere/compatibility/v1
      api_key: co-secret
  - model_name: jina-rerank
    litellm_params:
      model: jina/jina-reranker-v2-base-multilingual
      api_base: ${fake}/jina
      api_key: jina-secret
  - model_name: voyage-rerank
    litellm_params:
      model: voyage/rerank-2.5
      api_base: ${fake}/voyage
      api_key: voyage-secret
  - model_name: vllm-rerank
    litellm_params:
      model: hosted_vllm/BAAI/bge-reranker-v2-m3
      api_base: ${fake}/vllm/v1
    model_info:
      input_cost_per_token: 0.0000001
  - model_name: gpt
    litellm_params:
      model: openai/gpt-4o-mini
      api_base: ${fake}/openai/v1
      api_key: sk-openai
`,
    );
  });

  afterAll(() => stopGatewayOnFakes(running));

  const newKey = async (): Promise<{ id: string; key: string }> => {
    const created = await fetch(`${running.gateway.url}/api/v1/keys`, { method: 'POST', headers: asMaster, body: JSON.stringify({ project: 'rerank' }) });
    return (await created.json()) as { id: string; key: string };
  };

  /** As Cohere's SDK sends it: JSON with a bearer token. */
  const rerank = async (key: string, body: Record<string, unknown>, path = '/v2/rerank') => {
    const response = await fetch(`${running.gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as RerankAnswer & { error?: { code?: string; param?: string; message?: string } } };
  };

  const spendOf = async (keyId: string): Promise<{ spend: number; totals: Record<string, number> }> => {
    const deadline = Date.now() + 5000;
    let report: { spend: number; totals: Record<string, number> } | undefined;
    while (Date.now() < deadline) {
      report = (await (await fetch(`${running.gateway.url}/api/v1/keys/${keyId}/spend`, { headers: asMaster })).json()) as typeof report;
      if (report && report.totals['requests'] >= 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return report as { spend: number; totals: Record<string, number> };
  };

  const lastSeen = async (prefix: string) => (await running.fake.requests()).filter((request) => request.path.startsWith(prefix)).at(-1);

  it('reranks on Cohere with v2, most relevant first, and records a search unit of spend', async () => {
    const key = await newKey();
    const answer = await rerank(key.key, { model: 'cohere-rerank', query: QUERY, documents: DOCUMENTS, top_n: 2 });
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((result) => result.index)).toEqual([1, 0]);
    expect(answer.body.results[0]?.relevance_score).toBeGreaterThan(answer.body.results[1]?.relevance_score ?? 1);
    expect(answer.body.meta.billed_units?.search_units).toBe(1);
    expect(answer.headers.get('x-arbor-model-group')).toBe('cohere-rerank');

    const seen = await lastSeen('/cohere/v2/rerank');
    expect(seen?.headers['authorization']).toBe('Bearer co-secret');
    expect(JSON.parse(seen?.body ?? '{}')).toMatchObject({ model: 'rerank-v3.5', query: QUERY, documents: DOCUMENTS, top_n: 2 });

    // rerank-v3.5: USD 2 per 1,000 searches.
    const report = await spendOf(key.id);
    expect(report.totals['requests']).toBe(1);
    expect(report.spend).toBeCloseTo(0.002, 12);
  });

  it('takes v1 requests with {text} documents and returns the documents when asked', async () => {
    const answer = await rerank(
      MASTER_KEY,
      { model: 'cohere-rerank', query: QUERY, documents: DOCUMENTS.map((text) => ({ text })), return_documents: true, top_n: 1 },
      '/v1/rerank',
    );
    expect(answer.status).toBe(200);
    expect(answer.body.results).toEqual([{ index: 1, relevance_score: expect.any(Number), document: { text: DOCUMENTS[1] } }]);
  });

  it.each([
    ['jina-rerank', '/jina/v1/rerank', 'jina-reranker-v2-base-multilingual', 0.018e-6],
    ['voyage-rerank', '/voyage/v1/rerank', 'rerank-2.5', 0.05e-6],
    ['vllm-rerank', '/vllm/v1/rerank', 'BAAI/bge-reranker-v2-m3', 0.1e-6],
  ])('translates %s to its wire format and back, priced per token', async (alias, upstreamPath, model, pricePerToken) => {
    const key = await newKey();
    const answer = await rerank(key.key, { model: alias, query: QUERY, documents: DOCUMENTS, top_n: 3, return_documents: true });
    expect(answer.status).toBe(200);
    expect(answer.body.id).toEqual(expect.any(String));
    expect(answer.body.results.map((result) => result.index)).toEqual([1, 0, 2]);
    expect(answer.body.results[0]?.document).toEqual({ text: DOCUMENTS[1] });
    const tokens = answer.body.meta.billed_units?.input_tokens ?? 0;
    expect(tokens).toBeGreaterThan(0);

    const sent = JSON.parse((await lastSeen(upstreamPath))?.body ?? '{}') as Record<string, unknown>;
    expect(sent['model']).toBe(model);
    // Voyage names the limit top_k; the others top_n.
    expect(alias === 'voyage-rerank' ? sent['top_k'] : sent['top_n']).toBe(3);

    const report = await spendOf(key.id);
    expect(report.totals['prompt_tokens']).toBe(tokens);
    expect(report.spend).toBeCloseTo(tokens * pricePerToken, 14);
  });

  it('refuses a parameter the provider does not take with 400 naming it', async () => {
    const answer = await rerank(MASTER_KEY, { model: 'cohere-rerank', query: QUERY, documents: DOCUMENTS, truncation: false });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.param).toBe('truncation');
  });

  it('refuses an alias whose provider offers no rerank, and a request without documents, with 400', async () => {
    const noRerank = await rerank(MASTER_KEY, { model: 'gpt', query: QUERY, documents: DOCUMENTS });
    expect(noRerank.status).toBe(400);
    expect(noRerank.body.error?.message).toContain('no rerank');
    const noDocuments = await rerank(MASTER_KEY, { model: 'jina-rerank', query: QUERY, documents: [] });
    expect(noDocuments.status).toBe(400);
    expect(noDocuments.body.error?.param).toBe('documents');
  });

  it("maps the vendor's rate limit to 429 in the OpenAI-format envelope", async () => {
    const answer = await rerank(MASTER_KEY, { model: 'cohere-limited', query: QUERY, documents: DOCUMENTS });
    expect(answer.status).toBe(429);
    expect(answer.body.error?.code).toBe('rate_limit_exceeded');
    expect(answer.body.error?.message).toContain('too many requests');
  });

  it('refuses a request without a valid key with 401', async () => {
    const answer = await rerank('sk-wrong', { model: 'cohere-rerank', query: QUERY, documents: DOCUMENTS });
    expect(answer.status).toBe(401);
  });
});
