import { ProviderError } from '@arbor/provider-adapters';
import { excerpt } from '@arbor/platform';

// The gateway's own refusals, in family A terms (status, type, code).

export const missingKey = () =>
  new ProviderError(401, 'authentication_error', 'No API key given: send Authorization: Bearer <key> or x-api-key.', 'missing_api_key');

export const invalidKey = () => new ProviderError(401, 'authentication_error', 'The API key is not valid.', 'invalid_api_key');

export const unknownModel = (model: string) =>
  new ProviderError(404, 'not_found_error', `The model "${excerpt(model)}" does not exist or is not available to this key.`, 'model_not_found', 'model');

export const badRequest = (message: string, param: string | null = null) =>
  new ProviderError(400, 'invalid_request_error', message, 'invalid_request', param);

export const storedCompletionsNotServed = () =>
  new ProviderError(404, 'not_found_error', 'Stored chat completions are not served by this gateway.', 'not_served');

// 403 so that the official SDKs raise PermissionDeniedError; the code is LiteLLM's.
export const keyModelAccessDenied = (model: string) =>
  new ProviderError(403, 'permission_error', `This key may not call the model "${excerpt(model)}".`, 'key_model_access_denied', 'model');

export const requestTooLarge = (limitBytes: number) =>
  new ProviderError(413, 'invalid_request_error', `The request body is larger than ${limitBytes / (1024 * 1024)} MB.`, 'request_too_large');

export const unsupportedEncoding = (encoding: string) =>
  new ProviderError(415, 'invalid_request_error', `The request body's content-encoding "${excerpt(encoding)}" is not supported; send it uncompressed.`, 'unsupported_content_encoding');
