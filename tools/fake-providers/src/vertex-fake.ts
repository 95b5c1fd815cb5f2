// Google Vertex AI ({location}-aiplatform.googleapis.com) as the gateway sees it, under /vertex:
//   POST /v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent (or /v1beta1/…),
//     :streamGenerateContent (Gemini, answered as gemini-fake.ts answers), :predict (text embeddings)
//   POST …/publishers/anthropic/models/{model}:rawPredict, :streamRawPredict (Claude's Messages, with
//     `anthropic_version: vertex-2023-10-16` in the body and no `model`, answered as anthropic-fake.ts does)
//   POST …/publishers/google/models/{model}:countTokens → {totalTokens}; …/publishers/anthropic/models/
//     count-tokens:rawPredict (the model in the body) → {input_tokens}: a token per word (token-count.ts)
//   GET /_fake/service-account: a service account key of the fake's own (made at start), to
//     configure as vertex_credentials
// Every call needs `Authorization: Bearer <token>`, where the token is a JWT the service account
// signed itself (RS256 with its private key, `iss` and `sub` its email, the cloud-platform scope or
// an audience, not expired), as Google's client libraries send it: the fake checks the signature
// with the key's public half. A missing or bad token is Google's 401 UNAUTHENTICATED; a project
// other than the key's is 403 PERMISSION_DENIED. Model names choose failures as in gemini-fake.ts
// (fail-429 …; claude-fail-429 for Claude); Claude's claude-fail-529 is Anthropic's overloaded error, as Vertex passes it on.
import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { claudeAnswer, problemWith, sendAnthropicError, type MessagesRequest } from './anthropic-fake.ts';
import { answerGemini, GOOGLE_ERRORS, sendGoogleError } from './gemini-fake.ts';
import type { FakeHandler } from './openai-fake.ts';
import { fakeTokenCount } from './token-count.ts';

const PROJECT = 'fake-project';
const CLIENT_EMAIL = `ai-gateway@${PROJECT}.iam.gserviceaccount.com`;
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey: KeyObject = keys.publicKey;

/** The fake's service account key, in the format Google's console downloads. */
function serviceAccount(): Record<string, string> {
  return {
    type: 'service_account',
    project_id: PROJECT,
    private_key_id: 'fake-key-1',
    private_key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: CLIENT_EMAIL,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
    universe_domain: 'googleapis.com',
  };
}

export const handleVertex: FakeHandler = async (req, res, body, seen, rawPath) => {
  const url = new URL(rawPath, 'http://fake');
  if (req.method === 'GET' && url.pathname === '/_fake/service-account') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(serviceAccount()));
    return;
  }
  const route = /^\/v1(?:beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/.exec(url.pathname);
  if (req.method !== 'POST' || !route) {
    sendGoogleError(res, { code: 404, status: 'NOT_FOUND', message: `fake: unknown url ${req.method} ${url.pathname}` });
    return;
  }
  const [, project = '', location = '', publisher, rawModel = '', method = ''] = route;
  if (!validToken(req)) {
    sendGoogleError(res, {
      code: 401,
      status: 'UNAUTHENTICATED',
      message:
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    });
    return;
  }
  const model = decodeURIComponent(rawModel);
  if (decodeURIComponent(project) !== PROJECT) {
    sendGoogleError(res, {
      code: 403,
      status: 'PERMISSION_DENIED',
      message: `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${location}/publishers/${publisher}/models/${model}' (or it may not exist).`,
    });
    return;
  }
  if (publisher === 'anthropic' && model === 'count-tokens' && method === 'rawPredict') return answerCount(res, { input_tokens: fakeTokenCount(JSON.parse(body)) });
  if (publisher === 'google' && method === 'countTokens') {
    const tokens = fakeTokenCount(JSON.parse(body));
    return answerCount(res, { totalTokens: tokens, totalBillableCharacters: body.length });
  }
  if (publisher === 'anthropic') return claude(res, body, model, method);
  if (method === 'predict') return predict(res, body, model);
  if (method === 'generateContent' || method === 'streamGenerateContent') return answerGemini(res, body, seen, model, method, url);
  sendGoogleError(res, { code: 400, status: 'INVALID_ARGUMENT', message: `fake: unknown method ${method}` });
};

/** Whether the bearer token is a JWT the fake's service account signed, current, for Google's APIs. */
function validToken(req: IncomingMessage): boolean {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const [header, payload, signature] = token?.split('.') ?? [];
  if (!header || !payload || !signature) return false;
  try {
    const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown };
    if (head.alg !== 'RS256' || !verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))) return false;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iss?: unknown; sub?: unknown; exp?: unknown; scope?: unknown; aud?: unknown };
    const scoped = (typeof claims.scope === 'string' && claims.scope.split(' ').includes(CLOUD_PLATFORM)) || (typeof claims.aud === 'string' && claims.aud.startsWith('https://'));
    return claims.iss === CLIENT_EMAIL && claims.sub === CLIENT_EMAIL && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now() && scoped;
  } catch {
    return false;
  }
}

function claude(res: ServerResponse, body: string, model: string, method: string): void {
  if (method !== 'rawPredict' && method !== 'streamRawPredict') {
    sendGoogleError(res, { code: 400, status: 'INVALID_ARGUMENT', message: `fake: Claude models take rawPredict and streamRawPredict, not ${method}` });
    return;
  }
  const fail = /(?:^|-)fail-(.+)$/.exec(model)?.[1];
  if (fail === '529') return sendAnthropicError(res, 529, 'overloaded_error', 'Overloaded');
  const failure = fail ? GOOGLE_ERRORS[fail] : undefined;
  if (failure) return sendGoogleError(res, failure);
  let request: Record<string, unknown>;
  try {
    request = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return sendAnthropicError(res, 400, 'invalid_request_error', 'fake: the request body is not valid JSON');
  }
  if (request['anthropic_version'] !== 'vertex-2023-10-16') return sendAnthropicError(res, 400, 'invalid_request_error', "anthropic_version: Input should be 'vertex-2023-10-16'");
  if ('model' in request) return sendAnthropicError(res, 400, 'invalid_request_error', 'model: Extra inputs are not permitted');
  const { anthropic_version: _version, ...messages } = request;
  const problem = problemWith({ ...messages, model } as MessagesRequest, '2023-06-01');
  if (problem) return sendAnthropicError(res, 400, 'invalid_request_error', problem);
  // The usage is chosen by a tokens-… part of the name: claude-tokens-20-5-cache-10-4.
  const { message, events } = claudeAnswer(messages as MessagesRequest, /tokens-\d.*$/.exec(model)?.[0] ?? model);
  if (request['stream'] !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(message));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.end(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
}

/** Text embeddings: one prediction an instance, with its token count. */
function predict(res: ServerResponse, body: string, model: string): void {
  const failure = GOOGLE_ERRORS[/^fail-(.+)$/.exec(model)?.[1] ?? ''];
  if (failure) return sendGoogleError(res, failure);
  const request = JSON.parse(body) as { instances?: { content?: unknown }[]; parameters?: { outputDimensionality?: unknown } };
  if (!Array.isArray(request.instances) || request.instances.some((instance) => typeof instance.content !== 'string')) {
    return sendGoogleError(res, { code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received. Unknown name "instances".' });
  }
  const size = typeof request.parameters?.outputDimensionality === 'number' ? request.parameters.outputDimensionality : 8;
  const predictions = request.instances.map((instance, index) => ({
    embeddings: {
      values: Array.from({ length: size }, (_, i) => Math.round(((index + 1) * (i + 1)) % 7) / 7),
      statistics: { token_count: String(instance.content).split(/\s+/).filter(Boolean).length, truncated: false },
    },
  }));
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify({ predictions, metadata: { billableCharacterCount: request.instances.reduce((sum, instance) => sum + String(instance.content).length, 0) } }));
}

/** A count-tokens answer (Claude's count-tokens:rawPredict, Gemini's countTokens), by the fakes' tokenizer. */
function answerCount(res: ServerResponse, answer: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(answer));
}
