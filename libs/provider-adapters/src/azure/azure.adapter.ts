import type { ProviderAdapter, ProviderAnswer, ProviderCall, ProviderDeployment, ResourceTarget } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';
import { sendOpenAiMultipart, sendOpenAiShaped } from '../openai/openai.adapter';
import {
  OPENAI_COMPLETION_PARAMS,
  OPENAI_IMAGE_EDIT_PARAMS,
  OPENAI_IMAGE_GENERATION_PARAMS,
  OPENAI_RESPONSES_COMPACT_PARAMS,
  OPENAI_SPEECH_PARAMS,
  OPENAI_TRANSCRIPTION_PARAMS,
} from '../openai/openai.params';
import { asWebSocketUrl, keyHeaders } from '../lib/upstream-target';
import { OPENAI_PRICES } from '../openai/openai.prices';
import { AZURE_CHAT_COMPLETION_PARAMS, AZURE_EMBEDDING_PARAMS, AZURE_RESPONSES_PARAMS } from './azure.params';

/** The newest dated GA version of Azure OpenAI's inference API, used when a deployment names none. */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

/**
 * Azure OpenAI (`azure/<deployment-name>`, `api_base: https://<resource>.openai.azure.com`): OpenAI's
 * wire format at a per-deployment URL with an `api-key` header, passed through like OpenAI.
 */
export const azureAdapter: ProviderAdapter = {
  provider: 'azure',
  operations: {
    chat: { params: AZURE_CHAT_COMPLETION_PARAMS, unknownParams: 'forwarded', call: (call) => callAzure(call, 'chat/completions') },
    completions: { params: OPENAI_COMPLETION_PARAMS, unknownParams: 'forwarded', call: (call) => callAzure(call, 'completions') },
    embeddings: { params: AZURE_EMBEDDING_PARAMS, unknownParams: 'forwarded', call: (call) => callAzure(call, 'embeddings') },
    // The Responses API is served by Azure's v1 API only (no api-version; the deployment is `model`).
    responses: { params: AZURE_RESPONSES_PARAMS, unknownParams: 'forwarded', call: (call) => callAzure(call, 'responses', true) },
    responses_compact: { params: OPENAI_RESPONSES_COMPACT_PARAMS, unknownParams: 'forwarded', call: (call) => callAzure(call, 'responses/compact', true) },
    image_generation: { params: OPENAI_IMAGE_GENERATION_PARAMS, unknownParams: 'forwarded', call: (call) => callAzure(call, 'images/generations') },
    image_edit: { params: OPENAI_IMAGE_EDIT_PARAMS, unknownParams: 'forwarded', call: (call) => callAzure(call, 'images/edits', false, true) },
    audio_transcription: { params: OPENAI_TRANSCRIPTION_PARAMS, unknownParams: 'forwarded', call: (call) => callAzure(call, 'audio/transcriptions', false, true) },
    audio_speech: { params: OPENAI_SPEECH_PARAMS, unknownParams: 'forwarded', call: (call) => callAzure(call, 'audio/speech') },
  },
  // Azure has no default address: every resource has its own.
  settings: {
    params: ['api_base', 'api_key', 'api_version'],
    required: { api_base: 'https://<resource>.openai.azure.com' },
    env: { api_key: 'AZURE_API_KEY', api_base: 'AZURE_API_BASE', api_version: 'AZURE_API_VERSION' },
  },
  // Azure OpenAI's global standard deployments cost what OpenAI's models cost.
  prices: OPENAI_PRICES,
  batchPriceFactor: 0.5,
  litellm: { providerNames: ['azure_text'] },
  // wss://<resource>.openai.azure.com/openai/realtime?api-version=…&deployment=<name>, the key in api-key.
  realtime: {
    target: (deployment) => {
      const url = asWebSocketUrl(new URL(`${(deployment.apiBase ?? '').replace(/\/+$/, '').replace(/\/openai$/, '')}/openai/realtime`));
      url.searchParams.set('api-version', deployment.apiVersion ?? DEFAULT_AZURE_REALTIME_API_VERSION);
      url.searchParams.set('deployment', deployment.model);
      return { url, headers: keyHeaders('api-key', deployment.apiKey) };
    },
  },
  resources: azureResource,
};

/** The preview API version that serves realtime deployments, used when a deployment names none. */
export const DEFAULT_AZURE_REALTIME_API_VERSION = '2025-04-01-preview';

// Assistants and vector stores are served by Azure's preview API versions only.
const AZURE_ASSISTANTS_API_VERSION = '2025-04-01-preview';

/** `{api_base}/openai/{files|batches|…}?api-version=…`: Azure's stored resources belong to the resource, not a deployment. */
function azureResource(deployment: ProviderDeployment, path: string): ResourceTarget {
  if (!deployment.apiBase) {
    throw new ProviderError(500, 'server_error', `The Azure deployment "${deployment.model}" has no api_base (https://<resource>.openai.azure.com).`, 'provider_misconfigured');
  }
  const base = deployment.apiBase.replace(/\/+$/, '').replace(/\/openai$/, '');
  const url = new URL(`${base}/openai${path}`);
  const preview = /^\/(assistants|threads|vector_stores)/.test(path);
  // A GA api_version serves files and batches; assistants and vector stores need a preview one.
  const configured = deployment.apiVersion;
  const version = preview ? (configured?.endsWith('-preview') ? configured : AZURE_ASSISTANTS_API_VERSION) : (configured ?? DEFAULT_AZURE_API_VERSION);
  url.searchParams.set('api-version', version);
  return { url, headers: deployment.apiKey ? { 'api-key': deployment.apiKey } : ({} as Record<string, string>) };
}

async function callAzure(call: ProviderCall, operation: string, v1 = false, multipart = false): Promise<ProviderAnswer> {
  const { deployment } = call;
  if (!deployment.apiBase) {
    throw new ProviderError(500, 'server_error', `The Azure deployment "${deployment.model}" has no api_base (https://<resource>.openai.azure.com).`, 'provider_misconfigured');
  }
  const headers: Record<string, string> = {};
  if (deployment.apiKey) headers['api-key'] = deployment.apiKey;
  const url = v1 ? azureV1Url(deployment.apiBase, operation) : azureUrl(deployment.apiBase, deployment.model, operation, deployment.apiVersion ?? DEFAULT_AZURE_API_VERSION);
  try {
    const replace = { model: deployment.model };
    return await (multipart ? sendOpenAiMultipart(call, url, headers, replace) : sendOpenAiShaped(call, url, headers, replace));
  } catch (error) {
    throw error instanceof ProviderError ? withOpenAiCode(error) : error;
  }
}

/** `{api_base}/openai/deployments/{deployment}/{operation}?api-version=…`; an api_base ending in /openai is taken as is. */
export function azureUrl(apiBase: string, deploymentName: string, operation: string, apiVersion: string): URL {
  const base = apiBase.replace(/\/+$/, '').replace(/\/openai$/, '');
  const url = new URL(`${base}/openai/deployments/${encodeURIComponent(deploymentName)}/${operation}`);
  url.searchParams.set('api-version', apiVersion);
  return url;
}

/** `{api_base}/openai/v1/{operation}`: Azure OpenAI's v1 API, which takes the deployment as `model`. */
export function azureV1Url(apiBase: string, operation: string): URL {
  const base = apiBase.replace(/\/+$/, '').replace(/\/openai(\/v1)?$/, '');
  return new URL(`${base}/openai/v1/${operation}`);
}

// Azure's own errors put the HTTP status in `code` ("401", "429"); OpenAI-format clients look for these.
const CODE_BY_STATUS: Record<number, string> = { 401: 'invalid_api_key', 404: 'model_not_found', 408: 'timeout', 429: 'rate_limit_exceeded' };

function withOpenAiCode(error: ProviderError): ProviderError {
  if (error.code === null || !/^\d+$/.test(error.code)) return error;
  return new ProviderError(error.status, error.type, error.message, CODE_BY_STATUS[error.status] ?? null, error.param, error.headers);
}
