import { ProviderError } from './provider-error';
import { passThroughUrl } from './pass-through-url';

const BASE = 'https://provider.example/openai';

/** The URL built, or the refusal's status and code. */
function built(path: string, search = '', base = BASE): string | { status: number; code: string | null } {
  try {
    return passThroughUrl(base, path, search).href;
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { status: error.status, code: error.code };
  }
}

const REFUSED = { status: 400, code: 'invalid_pass_through_path' };

describe('passThroughUrl', () => {
  it('joins the path and query string below the base, segments as the client encoded them', () => {
    expect(built('/v1/files', '?limit=2')).toBe('https://provider.example/openai/v1/files?limit=2');
    expect(built('/v1/files/file-abc/content')).toBe('https://provider.example/openai/v1/files/file-abc/content');
    expect(built('/v1beta/models/gemini-2.5-pro:generateContent')).toBe('https://provider.example/openai/v1beta/models/gemini-2.5-pro:generateContent');
    expect(built('/v1/vector_stores/vs%20one')).toBe('https://provider.example/openai/v1/vector_stores/vs%20one');
    expect(built('/')).toBe('https://provider.example/openai/');
    expect(built('/v1/models', '', 'https://provider.example/')).toBe('https://provider.example/v1/models');
    expect(built('/v1/models', '', 'https://provider.example/base/')).toBe('https://provider.example/base/v1/models');
  });

  it('resolves dot segments that stay below the base', () => {
    expect(built('/v1/x/../files')).toBe('https://provider.example/openai/v1/files');
    expect(built('/v1/./files')).toBe('https://provider.example/openai/v1/files');
    expect(built('/v1/x/%2e%2e/files')).toBe('https://provider.example/openai/v1/files');
  });

  describe('refuses a path that leaves the base, in every spelling', () => {
    it.each([
      ['..', '/../_fake/requests'],
      ['%2e%2e', '/%2e%2e/_fake/requests'],
      ['.%2e', '/.%2e/_fake/requests'],
      ['%2e.', '/%2e./_fake/requests'],
      ['%2E%2E/%2E%2E', '/%2E%2E/%2E%2E/_fake/requests'],
      ['.. below a segment', '/v1/../../_fake/requests'],
      ['.. at the end', '/..'],
    ])('%s', (_what, path) => {
      expect(built(path)).toEqual(REFUSED);
    });
  });

  describe('refuses encodings an upstream could read as a way out, wherever they are', () => {
    it.each([
      ['double encoding', '/%252e%252e/_fake/requests'],
      ['double encoding below a segment', '/v1/%252e%252e/x'],
      ['mixed double encoding', '/%252E./_fake'],
      ['triple encoding', '/%25252e%25252e/_fake'],
      ['a backslash', '/..\\_fake/requests'],
      ['a backslash inside a segment', '/v1\\..\\..\\_fake'],
      ['an encoded backslash', '/..%5c_fake/requests'],
      ['an encoded backslash, upper case', '/v1/%5C'],
      ['a double-encoded backslash', '/v1/%255c'],
      ['an encoded slash', '/..%2f_fake/requests'],
      ['an empty segment', '/v1//files'],
      ['a leading empty segment', '//provider.example/_fake'],
      ['an encoded NUL', '/v1/a%00b'],
      ['bad percent-encoding', '/v1/%zz'],
      ['percent-encoding that is not UTF-8', '/v1/%c3'],
    ])('%s', (_what, path) => {
      expect(built(path)).toEqual(REFUSED);
    });
  });

  it('refuses a path that would leave a base given with a trailing slash or at the host root', () => {
    expect(built('/%2e%2e/admin', '', 'https://provider.example/base/')).toEqual(REFUSED);
    expect(built('/../admin', '', 'https://provider.example')).toEqual(REFUSED);
  });
});
