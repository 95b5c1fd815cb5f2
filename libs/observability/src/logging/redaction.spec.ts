import { PassThrough } from 'node:stream';
import { REDACTED, redactHeaders, redactSensitive, redactUrl } from './redaction';

describe('redactSensitive', () => {
  it('replaces credential-bearing keys at any depth and keeps the rest', () => {
    const logged = {
      client_secret: 'x',
      user: { name: 'alice', password: 'p', profile: { accessToken: 't', apiKey: 'k', 'x-api-key': 'k2', private_key: 'pk' } },
      headers: [{ Authorization: 'Bearer b', Cookie: 'c' }],
      usage: { prompt_tokens: 10, max_tokens: 100 },
    };
    expect(redactSensitive(logged)).toEqual({
      client_secret: REDACTED,
      user: { name: 'alice', password: REDACTED, profile: { accessToken: REDACTED, apiKey: REDACTED, 'x-api-key': REDACTED, private_key: REDACTED } },
      headers: [{ Authorization: REDACTED, Cookie: REDACTED }],
      usage: { prompt_tokens: 10, max_tokens: 100 },
    });
  });

  it('does not modify the caller’s object and returns it untouched when nothing is sensitive', () => {
    const logged = { nested: { secret: 's' } };
    redactSensitive(logged);
    expect(logged.nested.secret).toBe('s');
    const clean = { a: 1, b: { c: [1, 2] } };
    expect(redactSensitive(clean)).toBe(clean);
  });

  it('covers class instances such as DTOs', () => {
    class LoginDto {
      constructor(
        readonly username: string,
        readonly password: string,
      ) {}
    }
    expect(redactSensitive({ dto: new LoginDto('alice', 'hunter2') })).toEqual({ dto: { username: 'alice', password: REDACTED } });
  });

  it('survives cycles and leaves streams, buffers and dates alone', () => {
    const cyclic: Record<string, unknown> = { token: 't' };
    cyclic['self'] = cyclic;
    const stream = new PassThrough();
    const buffer = Buffer.from('abc');
    const date = new Date(0);
    const result = redactSensitive({ cyclic, stream, buffer, date });
    expect((result.cyclic as Record<string, unknown>)['token']).toBe(REDACTED);
    expect(result.stream).toBe(stream);
    expect(result.buffer).toBe(buffer);
    expect(result.date).toBe(date);
  });
});

describe('redactHeaders', () => {
  it('replaces credential headers by name', () => {
    expect(
      redactHeaders({
        authorization: 'Bearer a',
        'proxy-authorization': 'Basic b',
        cookie: 'c',
        'set-cookie': ['d'],
        'x-api-key': 'e',
        'api-key': 'f',
        'x-goog-api-key': 'g',
        'content-type': 'application/json',
      }),
    ).toEqual({
      authorization: REDACTED,
      'proxy-authorization': REDACTED,
      cookie: REDACTED,
      'set-cookie': REDACTED,
      'x-api-key': REDACTED,
      'api-key': REDACTED,
      'x-goog-api-key': REDACTED,
      'content-type': 'application/json',
    });
  });
});

describe('redactUrl', () => {
  it('replaces credential query parameters and keeps the others', () => {
    expect(redactUrl('/v1beta/models?key=AIza123&alt=sse')).toBe(`/v1beta/models?key=${REDACTED}&alt=sse`);
    expect(redactUrl('/cb?code=abc&state=xyz&access_token=t')).toBe(`/cb?code=${REDACTED}&state=xyz&access_token=${REDACTED}`);
    expect(redactUrl('/plain')).toBe('/plain');
    expect(redactUrl('/q?page=2')).toBe('/q?page=2');
  });
});
