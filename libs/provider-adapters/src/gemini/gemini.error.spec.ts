import { geminiError } from './gemini.error';

const body = (code: number, status: string, message: string, details?: unknown[]) => JSON.stringify({ error: { code, message, status, ...(details ? { details } : {}) } });

describe('Google errors in OpenAI-format terms', () => {
  it.each([
    [400, 'INVALID_ARGUMENT', 400, 'invalid_request_error', 'invalid_argument'],
    [400, 'FAILED_PRECONDITION', 400, 'invalid_request_error', 'failed_precondition'],
    [401, 'UNAUTHENTICATED', 401, 'authentication_error', 'invalid_api_key'],
    [403, 'PERMISSION_DENIED', 403, 'permission_error', 'permission_denied'],
    [404, 'NOT_FOUND', 404, 'not_found_error', 'not_found'],
    [429, 'RESOURCE_EXHAUSTED', 429, 'rate_limit_error', 'rate_limit_exceeded'],
    [500, 'INTERNAL', 500, 'server_error', 'internal'],
    [503, 'UNAVAILABLE', 503, 'server_error', 'unavailable'],
    [504, 'DEADLINE_EXCEEDED', 408, 'timeout', 'deadline_exceeded'],
  ])('maps %i %s to %i %s', (httpStatus, googleStatus, status, type, code) => {
    const error = geminiError(httpStatus, body(httpStatus, googleStatus, 'upstream says no'));
    expect({ status: error.status, type: error.type, code: error.code, message: error.message }).toEqual({ status, type, code, message: 'upstream says no' });
  });

  it('answers an invalid API key (Google: 400 with reason API_KEY_INVALID) with 401', () => {
    const error = geminiError(
      400,
      body(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
      ]),
    );
    expect(error.status).toBe(401);
    expect(error.code).toBe('invalid_api_key');
  });

  it('marks a too long input as context_length_exceeded', () => {
    const error = geminiError(400, body(400, 'INVALID_ARGUMENT', 'The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).'));
    expect(error.status).toBe(400);
    expect(error.code).toBe('context_length_exceeded');
  });

  it('takes Retry-After from the header, else from RetryInfo', () => {
    const quota = body(429, 'RESOURCE_EXHAUSTED', 'quota', [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '36.5s' }]);
    expect(geminiError(429, quota).headers).toEqual({ 'retry-after': '37' });
    expect(geminiError(429, quota, '5').headers).toEqual({ 'retry-after': '5' });
  });

  it("keeps to the status when the body is not Google's JSON", () => {
    const error = geminiError(502, '<html>Bad Gateway</html>');
    expect({ status: error.status, type: error.type }).toEqual({ status: 502, type: 'server_error' });
  });
});
