import { passThroughHeaders } from './pass-through-headers';

const CALLER = {
  host: 'gateway:4000',
  connection: 'keep-alive',
  'transfer-encoding': 'chunked',
  authorization: 'Bearer sk-virtual-key',
  'x-api-key': 'sk-virtual-key',
  'api-key': 'sk-virtual-key',
  'x-goog-api-key': 'sk-virtual-key',
  'proxy-authorization': 'Basic c2VjcmV0',
  cookie: 'session=caller',
  'content-type': 'application/json',
  'content-length': '42',
  accept: 'application/json',
  'user-agent': 'OpenAI/JS 7.0.0',
  'openai-beta': 'assistants=v2',
  'openai-organization': 'org-caller',
  'openai-project': 'proj-caller',
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'files-api-2025-04-14',
  'idempotency-key': 'once',
  'x-stainless-retry-count': '0',
  'x-forwarded-for': '10.0.0.1',
  'x-custom': 'custom',
};

describe('passThroughHeaders', () => {
  it("sends on only the allow-listed headers: the body, the vendors' documented ones, the SDKs' telemetry", () => {
    expect(passThroughHeaders(CALLER)).toEqual({
      'content-type': 'application/json',
      'content-length': '42',
      accept: 'application/json',
      'user-agent': 'OpenAI/JS 7.0.0',
      'openai-beta': 'assistants=v2',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'files-api-2025-04-14',
      'idempotency-key': 'once',
      'x-stainless-retry-count': '0',
    });
  });

  it("with every header asked for (forward_headers), still never the caller's credentials, cookies or hop-by-hop headers", () => {
    const sent = passThroughHeaders(CALLER, { allHeaders: true });
    expect(sent).toMatchObject({ 'x-custom': 'custom', 'x-forwarded-for': '10.0.0.1', 'openai-organization': 'org-caller', 'content-type': 'application/json' });
    for (const name of ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'proxy-authorization', 'cookie', 'host', 'connection', 'transfer-encoding'])
      expect(sent).not.toHaveProperty(name);
  });

  it('joins a header sent more than once', () => {
    expect(passThroughHeaders({ 'anthropic-beta': ['a', 'b'] as unknown as string })).toEqual({ 'anthropic-beta': 'a, b' });
  });

  it('never sends on a hop-by-hop header of RFC 9110, whatever the caller set', () => {
    const hops = Object.fromEntries(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'].map((name) => [name, 'x']));
    expect(passThroughHeaders({ ...hops, 'x-custom': 'custom' }, { allHeaders: true })).toEqual({ 'x-custom': 'custom' });
  });
});
