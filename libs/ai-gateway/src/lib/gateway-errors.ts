import { errorFields } from '@arbor/observability';
import { HttpException, Logger } from '@nestjs/common';
import { ProviderError } from '@arbor/provider-adapters';
import { excerpt } from '@arbor/platform';

// The gateway's own refusals, in OpenAI-format terms (status, type, code).

export const missingKey = () => new ProviderError(401, 'authentication_error', 'No API key given: send Authorization: Bearer <key> or x-api-key.', 'missing_api_key');

export const invalidKey = () => new ProviderError(401, 'authentication_error', 'The API key is not valid.', 'invalid_api_key');

export const projectDeleted = (project: string) =>
  new ProviderError(401, 'authentication_error', `The key's project "${excerpt(project)}" was deleted in the control plane; its keys no longer work.`, 'project_deleted');

export const unknownModel = (model: string) =>
  new ProviderError(404, 'not_found_error', `The model "${excerpt(model)}" does not exist or is not available to this key.`, 'model_not_found', 'model');

export const badRequest = (message: string, param: string | null = null) => new ProviderError(400, 'invalid_request_error', message, 'invalid_request', param);

export const storedCompletionsNotServed = () => new ProviderError(404, 'not_found_error', 'Stored chat completions are not served by this gateway.', 'not_served');

/** An OpenAI-format endpoint the gateway knows and does not serve (image variations, audio translations, fine-tuning). */
export const endpointNotServed = (what: string) => new ProviderError(404, 'not_found_error', `${what} are not served by this gateway.`, 'not_served');

export const uploadTooLarge = (limitBytes: number) =>
  new ProviderError(413, 'invalid_request_error', `The upload is larger than ${formatBytes(limitBytes)}, the gateway's limit (AIGW_MAX_UPLOAD_SIZE).`, 'request_too_large');

function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const)
    if (bytes >= size) return `${Number((bytes / size).toFixed(2))} ${unit}`;
  return `${bytes} bytes`;
}

export const passThroughNotConfigured = (route: string, provider: string) =>
  new ProviderError(404, 'not_found_error', `The pass-through /${route} needs a deployment of ${provider} in model_list; there is none.`, 'pass_through_not_configured');

// 403 so that the official SDKs raise PermissionDeniedError; the code is LiteLLM's.
export const keyModelAccessDenied = (model: string) =>
  new ProviderError(403, 'permission_error', `This key may not call the model "${excerpt(model)}".`, 'key_model_access_denied', 'model');

/** The key's project (LiteLLM's team `models`) does not allow the model. */
export const teamModelAccessDenied = (model: string) =>
  new ProviderError(403, 'permission_error', `This key's project may not call the model "${excerpt(model)}" (the team's models).`, 'team_model_access_denied', 'model');

export const requestTooLarge = (limitBytes: number) =>
  new ProviderError(413, 'invalid_request_error', `The request body is larger than ${limitBytes / (1024 * 1024)} MB.`, 'request_too_large');

export const unsupportedEncoding = (encoding: string) =>
  new ProviderError(
    415,
    'invalid_request_error',
    `The request body's content-encoding "${excerpt(encoding)}" is not supported; send it uncompressed.`,
    'unsupported_content_encoding',
  );

// Nest's own HTTP exceptions (malformed JSON, say) rendered as the OpenAI-format types of their status.
const TYPES_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout',
  413: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};

const logger = new Logger('ai-gateway');

/** Any error as OpenAI-format: ProviderError as it is, Nest's HTTP exceptions by status, the rest a 500 (logged, not shown). */
export function openAiError(exception: unknown): ProviderError {
  if (exception instanceof ProviderError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const body = exception.getResponse();
    const message = typeof body === 'string' ? body : String((body as { message?: unknown }).message ?? exception.message);
    const code = status === 413 ? 'request_too_large' : status === 400 ? 'invalid_request' : status === 404 ? 'not_found' : null;
    return new ProviderError(status, TYPES_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'), message, code);
  }
  logger.error('unhandled error', { err: errorFields(exception) });
  return new ProviderError(500, 'server_error', 'The gateway failed to handle the request.');
}
