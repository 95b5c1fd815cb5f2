// Google's Gemini API (generativelanguage.googleapis.com) as the gateway sees it, under /gemini:
//   POST /v1beta/models/{model}:generateContent (or /v1/…), :streamGenerateContent (?alt=sse: SSE framed with
//   CRLF as Google does; without it, one JSON array), :batchEmbedContents, :embedContent, and
//   Imagen's :predict ({instances: [{prompt}], parameters: {sampleCount, aspectRatio}} →
//   {predictions: [{bytesBase64Encoded, mimeType}]}, sampleCount images, 1 to 4).
// The key comes in x-goog-api-key (or ?key=); Google answers a missing one with 403.
// The model name chooses what happens, as in openai-fake.ts:
//   fail-<400|401|403|404|429|500|503|504|context|timeout|midstream|drop> (401: Google's answer to
//   an invalid key, a 400 INVALID_ARGUMENT with reason API_KEY_INVALID; context: the input token
//   count error; midstream: one chunk, then an error event; drop: one chunk, then a dropped connection)
//   tokens-<prompt>-<completion>[-<thoughts>[-<cached>]]: the usageMetadata reported
//   pause-<ms> / hold-<name>: streams stop after the first chunk for ms / until POST /_fake/release/<name>
// With function declarations in the request, and the last turn not a function response, the answer
// is a functionCall of the first function (sample arguments from its schema). With
// thinkingConfig.includeThoughts, the answer starts with a thought summary part (thought: true). With
// responseMimeType application/json and a responseJsonSchema, the text is a sample of that schema. With
// the Google Search tool (`tools: [{googleSearch: {}}]`) the candidate carries groundingMetadata as
// Google's does: the query searched (the last user turn's text), two pages (groundingChunks) and the
// answer's text as one segment supported by the first (groundingSupports); streamed, on the last
// piece. The translation is
// asserted through GET /_fake/requests; answers echo the model in x-fake-received-model.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { held, type FakeHandler, type SeenRequest } from './openai-fake.ts';

export interface GoogleErrorSpec {
  code: number;
  status: string;
  message: string;
  details?: unknown[];
}

export const GOOGLE_ERRORS: Record<string, GoogleErrorSpec> = {
  '400': { code: 400, status: 'INVALID_ARGUMENT', message: 'fake: Invalid JSON payload received.' },
  '401': {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: 'API key not valid. Please pass a valid API key.',
    details: [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
    ],
  },
  '403': { code: 403, status: 'PERMISSION_DENIED', message: 'fake: The caller does not have permission' },
  '404': { code: 404, status: 'NOT_FOUND', message: 'fake: models/x is not found for API version v1beta, or is not supported for generateContent.' },
  '429': {
    code: 429,
    status: 'RESOURCE_EXHAUSTED',
    message: 'fake: You exceeded your current quota, please check your plan and billing details.',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' },
    ],
  },
  '500': { code: 500, status: 'INTERNAL', message: 'fake: An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting' },
  '503': { code: 503, status: 'UNAVAILABLE', message: 'fake: The model is overloaded. Please try again later.' },
  '504': { code: 504, status: 'DEADLINE_EXCEEDED', message: 'fake: Deadline expired before operation could complete.' },
  context: { code: 400, status: 'INVALID_ARGUMENT', message: 'The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).' },
};

export function sendGoogleError(res: ServerResponse, error: GoogleErrorSpec): void {
  res.writeHead(error.code, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify({ error: { code: error.code, message: error.message, status: error.status, ...(error.details ? { details: error.details } : {}) } }, null, 2));
}

export const FAKE_THOUGHT_SUMMARY = 'The user wants a fake answer.';

interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: unknown;
  functionResponse?: unknown;
}

interface FakeGeminiRequest {
  contents?: { role?: string; parts?: Part[] }[];
  tools?: { functionDeclarations?: { name: string; parameters?: Schema; parametersJsonSchema?: Schema }[]; googleSearch?: unknown }[];
  generationConfig?: { candidateCount?: number; thinkingConfig?: { includeThoughts?: unknown }; responseMimeType?: string; responseJsonSchema?: Schema };
  requests?: { model?: string; content?: { parts?: Part[] }; outputDimensionality?: number }[];
  outputDimensionality?: number;
}

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
}

export const handleGemini: FakeHandler = async (req, res, body, seen, rawPath) => {
  const url = new URL(rawPath, 'http://fake');
  const route = /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent|batchEmbedContents|embedContent|predict)$/.exec(url.pathname);
  if (req.method !== 'POST' || !route) {
    sendGoogleError(res, { code: 404, status: 'NOT_FOUND', message: `fake: unknown url ${req.method} ${url.pathname}` });
    return;
  }
  const model = decodeURIComponent(route[1] ?? '');
  const method = route[2];
  if (!header(req, 'x-goog-api-key') && !url.searchParams.get('key')) {
    sendGoogleError(res, {
      code: 403,
      status: 'PERMISSION_DENIED',
      message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    });
    return;
  }
  return answerGemini(res, body, seen, model, method ?? '', url);
};

/**
 * What Gemini answers an authenticated call of `method` on `model` (generateContent,
 * streamGenerateContent, batchEmbedContents, embedContent), wherever Gemini is served (the
 * Gemini API, Vertex AI): failures chosen by the model name, the answer, or the stream.
 */
export async function answerGemini(res: ServerResponse, body: string, seen: SeenRequest, model: string, method: string, url: URL): Promise<void> {
  let request: FakeGeminiRequest;
  try {
    request = JSON.parse(body) as FakeGeminiRequest;
  } catch {
    sendGoogleError(res, { code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received.' });
    return;
  }
  const fail = /^fail-(.+)$/.exec(model)?.[1];
  if (fail === 'timeout') return; // never answers; the caller's timeout or abort ends it
  const failure = fail ? GOOGLE_ERRORS[fail] : undefined;
  if (failure) {
    sendGoogleError(res, failure);
    return;
  }
  const echoHeaders = { 'x-fake-received-model': model, 'server-timing': 'gfet4t7; dur=1' };
  if (method === 'predict') {
    const predict = request as { instances?: { prompt?: unknown }[]; parameters?: { sampleCount?: unknown; outputOptions?: { mimeType?: string } } };
    const count = predict.parameters?.sampleCount ?? 4;
    if (!model.startsWith('imagen-') || typeof predict.instances?.[0]?.prompt !== 'string') {
      sendGoogleError(res, { code: 400, status: 'INVALID_ARGUMENT', message: `fake: models/${model} does not serve predict with this request.` });
      return;
    }
    if (typeof count !== 'number' || count < 1 || count > 4) {
      sendGoogleError(res, { code: 400, status: 'INVALID_ARGUMENT', message: 'fake: sampleCount must be between 1 and 4.' });
      return;
    }
    const mimeType = predict.parameters?.outputOptions?.mimeType ?? 'image/png';
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', ...echoHeaders });
    res.end(JSON.stringify({ predictions: Array.from({ length: count }, () => ({ mimeType, bytesBase64Encoded: png })) }));
    return;
  }
  if (method === 'batchEmbedContents' || method === 'embedContent') {
    const embedding = (index: number, size: number | undefined) => ({ values: vector(index, size ?? 8) });
    if (method === 'embedContent') {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', ...echoHeaders });
      res.end(JSON.stringify({ embedding: embedding(0, request.outputDimensionality) }));
      return;
    }
    const requests = request.requests ?? [];
    // Google checks that every request names the model of the URL.
    const stray = requests.find((entry) => entry.model !== `models/${model}`);
    if (stray) {
      sendGoogleError(res, {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: `Model names should be the same in the batch request and in the URL: ${String(stray.model)} vs models/${model}.`,
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', ...echoHeaders });
    res.end(JSON.stringify({ embeddings: requests.map((entry, index) => embedding(index, entry.outputDimensionality)) }));
    return;
  }

  const tokens = /^tokens-(\d+)-(\d+)(?:-(\d+))?(?:-(\d+))?$/.exec(model);
  const usageMetadata = {
    promptTokenCount: tokens ? Number(tokens[1]) : 7,
    candidatesTokenCount: tokens ? Number(tokens[2]) : 5,
    ...(tokens?.[3] ? { thoughtsTokenCount: Number(tokens[3]) } : {}),
    ...(tokens?.[4] ? { cachedContentTokenCount: Number(tokens[4]) } : {}),
  };
  const usage = { ...usageMetadata, totalTokenCount: usageMetadata.promptTokenCount + usageMetadata.candidatesTokenCount + (usageMetadata.thoughtsTokenCount ?? 0) };
  const responseId = `fake${Date.now().toString(36)}`;
  const candidates = Math.max(1, request.generationConfig?.candidateCount ?? 1);
  const call = functionCallFor(request);
  // Structured output: a sample of the requested schema, as JSON text.
  const schema = request.generationConfig?.responseMimeType === 'application/json' ? request.generationConfig.responseJsonSchema : undefined;
  const text = schema ? JSON.stringify(sampleValue(schema)) : `fake answer from ${model}`;

  const thought: Part[] = request.generationConfig?.thinkingConfig?.includeThoughts === true ? [{ text: FAKE_THOUGHT_SUMMARY, thought: true }] : [];
  const grounding = !call && request.tools?.some((tool) => tool.googleSearch !== undefined) ? groundingFor(request, text) : undefined;
  if (method === 'generateContent') {
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', ...echoHeaders });
    const parts = [...thought, ...(call ? [call] : [{ text }])];
    res.end(
      JSON.stringify({
        candidates: Array.from({ length: candidates }, (_, index) => ({
          content: { parts, role: 'model' },
          finishReason: 'STOP',
          index,
          ...(grounding ? { groundingMetadata: grounding } : {}),
        })),
        usageMetadata: usage,
        modelVersion: model,
        responseId,
      }),
    );
    return;
  }

  // streamGenerateContent: text word by word (a function call comes whole), finishReason and the
  // full usageMetadata on the last response; earlier ones carry the prompt count only.
  const answerPieces: Part[][] = call ? [[call]] : text.split(' ').map((word, index, words) => [{ text: index < words.length - 1 ? `${word} ` : word }]);
  const pieces = thought.length > 0 ? [thought, ...answerPieces] : answerPieces;
  const responses = pieces.map((parts, index) => {
    const last = index === pieces.length - 1;
    return {
      candidates: Array.from({ length: candidates }, (_, candidate) => ({
        content: { parts, role: 'model' },
        ...(last ? { finishReason: 'STOP' } : {}),
        index: candidate,
        ...(last && grounding ? { groundingMetadata: grounding } : {}),
      })),
      usageMetadata: last ? usage : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
      modelVersion: model,
      responseId,
    };
  });
  if (url.searchParams.get('alt') !== 'sse') {
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', ...echoHeaders });
    res.end(JSON.stringify(responses));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...echoHeaders });
  res.flushHeaders();
  const pauseMs = Number(/^pause-(\d+)$/.exec(model)?.[1] ?? 0);
  const hold = /^hold-(.+)$/.exec(model)?.[1];
  for (const [index, response] of responses.entries()) {
    if (seen.aborted || res.destroyed) return;
    // Flushed before anything else happens, so a dropped connection still delivered the first chunk.
    await new Promise((flushed) => res.write(`data: ${JSON.stringify(response)}\r\n\r\n`, flushed));
    if (index === 0 && pauseMs > 0) await sleep(pauseMs);
    if (index === 0 && hold) await held(hold);
    if (index === 0 && fail === 'midstream') {
      const error = GOOGLE_ERRORS['503'] as GoogleErrorSpec;
      res.end(`data: ${JSON.stringify({ error: { code: error.code, message: error.message, status: error.status } })}\r\n\r\n`);
      return;
    }
    if (index === 0 && fail === 'drop') {
      res.destroy();
      return;
    }
  }
  res.end();
}

/** Google Search grounding of `text`: the last user text searched, two pages, the whole text supported by the first (UTF-8 byte offsets). */
function groundingFor(request: FakeGeminiRequest, text: string): Record<string, unknown> {
  const query = (request.contents ?? [])
    .filter((content) => content.role !== 'model' && content.parts?.some((part) => typeof part.text === 'string'))
    .at(-1)
    ?.parts?.flatMap((part) => (typeof part.text === 'string' ? [part.text] : []))
    .join(' ');
  return {
    webSearchQueries: [query ?? ''],
    groundingChunks: [1, 2].map((n) => ({ web: { uri: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/fake-${n}`, title: `fake-result-${n}.example.com` } })),
    groundingSupports: [{ segment: { startIndex: 0, endIndex: Buffer.byteLength(text), text }, groundingChunkIndices: [0] }],
    searchEntryPoint: { renderedContent: '<div>fake search suggestions</div>' },
  };
}

/** A functionCall of the first declared function, unless the conversation just answered one. */
function functionCallFor(request: FakeGeminiRequest): Part | undefined {
  const declaration = request.tools?.flatMap((tool) => tool.functionDeclarations ?? [])[0];
  const lastParts = request.contents?.at(-1)?.parts ?? [];
  if (!declaration || lastParts.some((part) => part.functionResponse !== undefined)) return undefined;
  const schema = declaration.parametersJsonSchema ?? declaration.parameters;
  const args = Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([name, property]) => [name, sampleValue(property)]));
  return { functionCall: { name: declaration.name, args }, thoughtSignature: 'ZmFrZS10aG91Z2h0LXNpZ25hdHVyZQ==' };
}

function sampleValue(schema: Schema): unknown {
  switch (schema.type?.toLowerCase()) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, sampleValue(property)]));
    default:
      return 'fake';
  }
}

function vector(index: number, size: number): number[] {
  return Array.from({ length: size }, (_, i) => Math.round(((index + 1) * (i + 1)) % 7) / 7);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
