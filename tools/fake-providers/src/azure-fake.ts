// Azure OpenAI (https://<resource>.openai.azure.com) under /azure: OpenAI's wire format at
// POST /openai/deployments/{deployment}/{chat/completions|completions|embeddings}?api-version=…,
// with the key in `api-key`. The call goes on to the OpenAI fake as /v1/<operation> with the
// deployment as model, so the model-name conventions of openai-fake.ts apply to deployment names;
// fail-401, fail-404 and fail-429 answer with Azure's own error bodies (the status in `code`).
// The v1 API's Responses routes, POST /openai/v1/responses and /openai/v1/responses/compact (no
// api-version; the deployment is the body's `model`), go on the same way.
import type { ServerResponse } from 'node:http';
import { handleAnthropic } from './anthropic-fake.ts';
import { handleOpenAi, type FakeHandler } from './openai-fake.ts';

const AZURE_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  '401': {
    status: 401,
    code: '401',
    message:
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
  },
  '404': {
    status: 404,
    code: 'DeploymentNotFound',
    message: 'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
  },
  '429': {
    status: 429,
    code: '429',
    message:
      'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second.',
  },
};

function sendAzureError(res: ServerResponse, error: { status: number; code: string; message: string }): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'apim-request-id': `fake-${Date.now()}` };
  if (error.status === 429) headers['retry-after'] = '1';
  res.writeHead(error.status, headers);
  res.end(JSON.stringify({ error: { code: error.code, message: error.message } }));
}

export const handleAzure: FakeHandler = async (req, res, body, seen, rawPath) => {
  const url = new URL(rawPath, 'http://fake');
  // Stored resources (files, batches, vector stores, assistants, threads) belong to the resource, not a deployment.
  const resource = /^\/openai(\/(?:files|batches|vector_stores|assistants|threads)(?:\/.*)?)$/.exec(url.pathname);
  if (resource && url.searchParams.get('api-version')) {
    const apiKey = req.headers['api-key'];
    if (typeof apiKey !== 'string' || apiKey === '') return sendAzureError(res, AZURE_ERRORS['401'] as (typeof AZURE_ERRORS)[string]);
    seen.headers = { ...req.headers };
    req.headers.authorization = `Bearer ${apiKey}`;
    url.searchParams.delete('api-version');
    await handleOpenAi(req, res, body, seen, `/v1${resource[1]}${url.search}`);
    return;
  }
  const v1 = /^\/openai\/v1\/(responses|responses\/compact)$/.exec(url.pathname);
  const route = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|completions|embeddings|images\/generations|images\/edits|audio\/transcriptions|audio\/speech)$/.exec(
    url.pathname,
  );
  if (req.method !== 'POST' || !(v1 || (route && url.searchParams.get('api-version')))) {
    // What Azure answers for a path it does not serve, a missing api-version included.
    sendAzureError(res, { status: 404, code: '404', message: 'Resource not found' });
    return;
  }
  const apiKey = req.headers['api-key'];
  if (typeof apiKey !== 'string' || apiKey === '') {
    sendAzureError(res, AZURE_ERRORS['401'] as (typeof AZURE_ERRORS)[string]);
    return;
  }
  let request: Record<string, unknown>;
  if (route && /^multipart\/form-data/.test(req.headers['content-type'] ?? '')) {
    // Image edits and transcriptions: the form goes on as it came; Azure serves the deployment in the URL.
    const deployment = decodeURIComponent(route[1] ?? '');
    const azureFailure = AZURE_ERRORS[/^fail-(.+)$/.exec(deployment)?.[1] ?? ''];
    if (azureFailure) return sendAzureError(res, azureFailure);
    seen.headers = { ...req.headers };
    req.headers.authorization = `Bearer ${apiKey}`;
    await handleOpenAi(req, res, body, seen, `/v1/${route[2] ?? ''}`, { model: deployment });
    return;
  }
  try {
    request = JSON.parse(body) as Record<string, unknown>;
  } catch {
    sendAzureError(res, { status: 400, code: 'BadRequest', message: 'fake: the request body is not JSON' });
    return;
  }
  const deployment = v1 ? String(request['model'] ?? '') : decodeURIComponent(route?.[1] ?? '');
  const azureFailure = AZURE_ERRORS[/^fail-(.+)$/.exec(deployment)?.[1] ?? ''];
  if (azureFailure) {
    sendAzureError(res, azureFailure);
    return;
  }
  // The OpenAI fake wants a bearer key; the record keeps the headers as they arrived.
  seen.headers = { ...req.headers };
  req.headers.authorization = `Bearer ${apiKey}`;
  // Azure serves the deployment whatever `model` says.
  await handleOpenAi(req, res, JSON.stringify({ ...request, model: deployment }), seen, `/v1/${v1?.[1] ?? route?.[2] ?? ''}`);
};

// Azure AI Foundry (https://<resource>.services.ai.azure.com) under /azure_ai: the model inference
// API at POST /models/{chat/completions|embeddings}?api-version=… (OpenAI's format, the model in
// the body, the key in `api-key`; on to the OpenAI fake), and Claude at POST /anthropic/v1/messages
// (Anthropic's Messages API keyed in `api-key`; on to the Anthropic fake).
export const handleAzureAi: FakeHandler = async (req, res, body, seen, rawPath) => {
  const url = new URL(rawPath, 'http://fake');
  const apiKey = req.headers['api-key'];
  const models = /^\/models\/(chat\/completions|embeddings)$/.exec(url.pathname);
  const claude = url.pathname === '/anthropic/v1/messages';
  if (req.method !== 'POST' || !(claude || (models && url.searchParams.get('api-version')))) {
    sendAzureError(res, { status: 404, code: '404', message: 'Resource not found' });
    return;
  }
  if (typeof apiKey !== 'string' || apiKey === '') {
    sendAzureError(res, AZURE_ERRORS['401'] as (typeof AZURE_ERRORS)[string]);
    return;
  }
  seen.headers = { ...req.headers };
  if (claude) {
    req.headers['x-api-key'] = apiKey;
    await handleAnthropic(req, res, body, seen, '/v1/messages');
    return;
  }
  req.headers.authorization = `Bearer ${apiKey}`;
  await handleOpenAi(req, res, body, seen, `/v1/${models?.[1] ?? ''}`);
};
