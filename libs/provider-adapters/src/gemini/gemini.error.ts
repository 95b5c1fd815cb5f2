import { errorTypeOfStatus, ProviderError } from '../lib/provider-error';

/** Google's error body: `{"error": {"code", "message", "status", "details"}}`. */
export interface GoogleError {
  code?: number;
  message?: string;
  status?: string;
  details?: { '@type'?: string; reason?: string; retryDelay?: string }[];
}

// Google's canonical status → the OpenAI-format status the OpenAI SDKs map to an error class.
const STATUS_BY_GOOGLE_STATUS: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNKNOWN: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 408,
};

const CONTEXT_TOO_LONG = /exceeds the maximum number of tokens|input token count .*exceeds|too many tokens|context (length|window)/i;

/** A Gemini error answer (or a stream's error event) as ProviderError. */
export function geminiError(httpStatus: number, text: string, retryAfterHeader?: string): ProviderError {
  let error: GoogleError = {};
  try {
    const parsed = JSON.parse(text) as { error?: GoogleError } | { error?: GoogleError }[];
    // Some Google front ends wrap the body in a one-element list.
    const body = Array.isArray(parsed) ? parsed[0] : parsed;
    if (body && typeof body.error === 'object' && body.error !== null) error = body.error;
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone says what happened.
  }
  return geminiErrorFrom(error, httpStatus, retryAfterHeader);
}

export function geminiErrorFrom(error: GoogleError, httpStatus: number, retryAfterHeader?: string): ProviderError {
  const reasons = (error.details ?? []).map((detail) => detail.reason);
  const message = typeof error.message === 'string' ? error.message : `Gemini answered ${httpStatus}.`;
  let status = (error.status && STATUS_BY_GOOGLE_STATUS[error.status]) || openAiStatus(error.code ?? httpStatus);
  // Google answers an invalid key with 400 INVALID_ARGUMENT; OpenAI-format clients expect 401.
  if (reasons.includes('API_KEY_INVALID')) status = 401;
  let code: string | null = error.status ? error.status.toLowerCase() : null;
  if (status === 401) code = 'invalid_api_key';
  else if (status === 429) code = 'rate_limit_exceeded';
  else if (status === 400 && CONTEXT_TOO_LONG.test(message)) code = 'context_length_exceeded';
  const headers: Record<string, string> = {};
  const retryAfter = retryAfterHeader ?? retryDelaySeconds(error);
  if (status === 429 && retryAfter !== undefined) headers['retry-after'] = retryAfter;
  return new ProviderError(status, errorTypeOfStatus(status), message, code, null, headers);
}

function openAiStatus(status: number): number {
  if (status === 504) return 408;
  if ([400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503].includes(status)) return status;
  return status >= 500 ? 502 : 400;
}

/** RetryInfo's `retryDelay` ("37s", "1.5s") as whole seconds for Retry-After. */
function retryDelaySeconds(error: GoogleError): string | undefined {
  const delay = error.details?.find((detail) => detail['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay;
  const seconds = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1] : undefined;
  return seconds === undefined ? undefined : String(Math.max(1, Math.ceil(Number(seconds))));
}
