import { errorTypeOfStatus, ProviderError } from '../lib/provider-error';

// Bedrock's exception names (x-amzn-errortype, or an event stream's :exception-type) → the status
// OpenAI-format clients act on. ModelNotReadyException is sent as 429 but means "try again shortly,
// the model is loading": 503, as LiteLLM maps it, so that it is not counted against a rate limit.
const STATUS_BY_EXCEPTION: Record<string, number> = {
  ValidationException: 400,
  AccessDeniedException: 403,
  UnrecognizedClientException: 401,
  InvalidSignatureException: 401,
  ExpiredTokenException: 401,
  IncompleteSignatureException: 401,
  MissingAuthenticationTokenException: 401,
  ResourceNotFoundException: 404,
  ModelTimeoutException: 408,
  ThrottlingException: 429,
  ServiceQuotaExceededException: 429,
  ModelNotReadyException: 503,
  ServiceUnavailableException: 503,
  ModelErrorException: 502,
  ModelStreamErrorException: 502,
  InternalServerException: 500,
};

const CODE_BY_STATUS: Record<number, string> = { 401: 'invalid_api_key', 404: 'model_not_found', 408: 'timeout', 429: 'rate_limit_exceeded' };

const CONTEXT_TOO_LONG = /input is too long|too many (input )?tokens|prompt is too long|context (length|window)/i;

/** A Bedrock error answer (`{"message": …}` with the exception in x-amzn-errortype) as ProviderError. */
export function bedrockError(httpStatus: number, errorTypeHeader: string | undefined, text: string, retryAfter?: string): ProviderError {
  // "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"
  let name = errorTypeHeader?.split(':')[0];
  let body = text;
  try {
    const parsed = JSON.parse(text) as { message?: unknown; Message?: unknown; __type?: unknown };
    const message = parsed.message ?? parsed.Message;
    if (typeof message === 'string') body = message;
    if (!name && typeof parsed.__type === 'string') name = parsed.__type.split('#').at(-1);
  } catch {
    // Not JSON (a proxy's page): the status and the header say what happened.
  }
  const error = bedrockErrorOf(name ?? '', body, httpStatus);
  if (retryAfter !== undefined && error.status === 429) error.headers['retry-after'] = retryAfter;
  return error;
}

/** One Bedrock exception (by name, with its message) as ProviderError. */
export function bedrockErrorOf(exception: string, message: string, httpStatus: number): ProviderError {
  // An event stream names its exceptions as members (throttlingException), the HTTP header as types.
  const name = exception.charAt(0).toUpperCase() + exception.slice(1);
  let text = message;
  try {
    const parsed = JSON.parse(message) as { message?: unknown };
    if (typeof parsed.message === 'string') text = parsed.message;
  } catch {
    // the message itself
  }
  const status = STATUS_BY_EXCEPTION[name] ?? (httpStatus >= 500 ? 502 : httpStatus >= 400 ? httpStatus : 502);
  let code =
    CODE_BY_STATUS[status] ??
    (name
      ? name
          .replace(/Exception$/, '')
          .replace(/([a-z])([A-Z])/g, '$1_$2')
          .toLowerCase()
      : null);
  if (status === 400 && CONTEXT_TOO_LONG.test(text)) code = 'context_length_exceeded';
  return new ProviderError(status, errorTypeOfStatus(status), text || `Bedrock answered ${name || httpStatus}.`, code);
}
