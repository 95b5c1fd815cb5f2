import { anthropicError } from './anthropic.error';

describe('Anthropic errors as OpenAI-format errors', () => {
  const body = (type: string, message = 'm') => JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_1' });

  it.each([
    [400, 'invalid_request_error', 400, 'invalid_request_error'],
    [401, 'authentication_error', 401, 'invalid_request_error'],
    [403, 'permission_error', 403, 'invalid_request_error'],
    [404, 'not_found_error', 404, 'invalid_request_error'],
    [413, 'request_too_large', 413, 'invalid_request_error'],
    [429, 'rate_limit_error', 429, 'rate_limit_error'],
    [500, 'api_error', 500, 'server_error'],
    [529, 'overloaded_error', 503, 'server_error'],
  ])('answers Anthropic %i %s with %i %s', (status, anthropicType, openAiStatus, openAiType) => {
    const error = anthropicError(status, body(anthropicType, 'upstream says no'));
    expect(error.status).toBe(openAiStatus);
    expect(error.toBody().error).toMatchObject({ type: openAiType, message: 'upstream says no' });
  });

  it('marks a prompt too long for the model with code context_length_exceeded', () => {
    const error = anthropicError(400, body('invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum'));
    expect(error.toBody().error).toEqual({
      message: 'prompt is too long: 208310 tokens > 200000 maximum',
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    });
  });

  it('keeps Retry-After on a rate limit', () => {
    expect(anthropicError(429, body('rate_limit_error'), '12').headers).toEqual({ 'retry-after': '12' });
  });

  it('maps by status when the body is not Anthropic JSON, and a stream error event by its type alone', () => {
    expect(anthropicError(529, '<html>busy</html>').status).toBe(503);
    expect(anthropicError(502, 'Bad Gateway').status).toBe(502);
    expect(anthropicError(undefined, body('overloaded_error', 'Overloaded')).status).toBe(503);
  });
});
