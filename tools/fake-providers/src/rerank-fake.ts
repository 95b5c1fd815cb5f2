// Rerank APIs in their own wire formats, each behind a bearer key (but vLLM's, started without one):
//   /cohere  POST /v1/rerank, /v2/rerank (Cohere): {id, results: [{index, relevance_score}], meta:
//            {api_version, billed_units: {search_units}}} (one search unit per 100 documents); v1
//            takes {text} documents and return_documents; errors {"id","message"}
//   /jina    POST /v1/rerank (Jina AI): {model, object, usage: {total_tokens, prompt_tokens},
//            results: [{index, relevance_score, document?: {text}}]} (documents returned unless
//            return_documents is false); errors {"detail"}
//   /voyage  POST /v1/rerank (Voyage AI, `top_k`): {object: "list", data: [{index,
//            relevance_score, document?}], model, usage: {total_tokens}}; errors {"detail"}
//   /vllm    POST /v1/rerank (a vLLM server): Jina's shape with an id; everything else is the
//            OpenAI fake (a vLLM server also serves chat)
// Scores: the share of the query's words a document contains, so the order is predictable.
// Tokens: the words of the query once per document plus the words of every document.
// Model fail-<401|429|500> (or x-fake-fail): that error in the vendor's shape.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleOpenAi, type FakeHandler } from './openai-fake.ts';

type Vendor = 'cohere' | 'jina' | 'voyage' | 'vllm';

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_fake_${Date.now()}` });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, vendor: Vendor, status: number, message: string): void {
  if (vendor === 'cohere') return send(res, status, { id: `fake-${Date.now()}`, message });
  if (vendor === 'vllm') return send(res, status, { object: 'error', message, type: 'BadRequestError', param: null, code: status });
  send(res, status, { detail: message });
}

const FAILURES: Record<string, { status: number; message: string }> = {
  '401': { status: 401, message: 'fake: invalid api token' },
  '429': { status: 429, message: 'fake: too many requests' },
  '500': { status: 500, message: 'fake: internal server error' },
};

async function rerank(vendor: Vendor, req: IncomingMessage, res: ServerResponse, body: string, path: string): Promise<void> {
  if (req.method !== 'POST' || !(path === '/v1/rerank' || (vendor === 'cohere' && path === '/v2/rerank'))) {
    return sendError(res, vendor, 404, `fake: unknown url ${req.method} ${path}`);
  }
  // A vLLM server takes a key only when started with --api-key (this one is not).
  if (vendor !== 'vllm' && !/^Bearer \S+/.test(req.headers.authorization ?? '')) return sendError(res, vendor, 401, 'fake: no api key supplied');
  let request: { model?: unknown; query?: unknown; documents?: unknown; top_n?: unknown; top_k?: unknown; return_documents?: unknown };
  try {
    request = JSON.parse(body) as typeof request;
  } catch {
    return sendError(res, vendor, 400, 'fake: invalid JSON');
  }
  const model = typeof request.model === 'string' ? request.model : '';
  const failHeader = req.headers['x-fake-fail'];
  const failure = FAILURES[(typeof failHeader === 'string' ? failHeader : undefined) ?? /^fail-(.+)$/.exec(model)?.[1] ?? ''];
  if (failure) return sendError(res, vendor, failure.status, failure.message);
  const v2 = vendor === 'cohere' && path === '/v2/rerank';
  const documents = Array.isArray(request.documents) ? request.documents : undefined;
  if (!model || typeof request.query !== 'string' || !documents || documents.length === 0) {
    return sendError(res, vendor, vendor === 'jina' || vendor === 'voyage' ? 422 : 400, 'fake: model, query and documents are required');
  }
  const texts: string[] = [];
  for (const item of documents) {
    if (typeof item === 'string') texts.push(item);
    else if (!v2 && vendor === 'cohere' && typeof (item as { text?: unknown } | null)?.text === 'string') texts.push((item as { text: string }).text);
    else return sendError(res, vendor, 400, 'fake: documents must be a list of strings');
  }
  const query = words(request.query);
  const scored = texts
    .map((text, index) => {
      const own = new Set(words(text));
      return { index, relevance_score: query.length === 0 ? 0 : query.filter((word) => own.has(word)).length / query.length };
    })
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const limit = vendor === 'voyage' ? request.top_k : request.top_n;
  const top = typeof limit === 'number' ? scored.slice(0, limit) : scored;
  const tokens = query.length * texts.length + texts.reduce((sum, text) => sum + words(text).length, 0);
  if (vendor === 'cohere') {
    const withDocuments = !v2 && request.return_documents === true;
    return send(res, 200, {
      id: `fake-rerank-${Date.now()}`,
      results: top.map((result) => ({ ...result, ...(withDocuments ? { document: { text: texts[result.index] } } : {}) })),
      meta: { api_version: { version: v2 ? '2' : '1' }, billed_units: { search_units: Math.ceil(texts.length / 100) } },
    });
  }
  if (vendor === 'voyage') {
    return send(res, 200, {
      object: 'list',
      data: top.map((result) => ({ ...result, ...(request.return_documents === true ? { document: texts[result.index] } : {}) })),
      model,
      usage: { total_tokens: tokens },
    });
  }
  send(res, 200, {
    ...(vendor === 'vllm' ? { id: `rerank-fake${Date.now()}` } : { object: 'list' }),
    model,
    usage: { total_tokens: tokens, prompt_tokens: tokens },
    results: top.map((result) => ({ ...result, ...(request.return_documents === false ? {} : { document: { text: texts[result.index] } }) })),
  });
}

export const handleCohere: FakeHandler = (req, res, body, _seen, path) => rerank('cohere', req, res, body, new URL(path, 'http://fake').pathname);
export const handleJina: FakeHandler = (req, res, body, _seen, path) => rerank('jina', req, res, body, new URL(path, 'http://fake').pathname);
export const handleVoyage: FakeHandler = (req, res, body, _seen, path) => rerank('voyage', req, res, body, new URL(path, 'http://fake').pathname);
export const handleVllm: FakeHandler = (req, res, body, seen, path) =>
  new URL(path, 'http://fake').pathname === '/v1/rerank' ? rerank('vllm', req, res, body, '/v1/rerank') : handleOpenAi(req, res, body, seen, path);
