// How an MCP client finds where to sign a person in: the 401's Bearer challenge points at the
// OAuth protected resource metadata (RFC 9728) of the endpoint it called, which names the
// identity provider — read with the official v2 client's own discovery functions.
import { request } from 'node:http';
import { discoverOAuthProtectedResourceMetadata, extractResourceMetadataUrl } from '@modelcontextprotocol/client';
import { freePort } from '@arbor/testing';
import { northAndSouthRegistry, startGateway, TEST_AUTHORIZATION_SERVER, TestGateway } from '../transports/testing/test-gateway';
import { SseUpstream, StreamableUpstream } from '../transports/testing/test-upstreams';

describe('OAuth protected resource metadata for MCP clients', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  let gateway: TestGateway;

  beforeAll(async () => {
    await Promise.all([north.start(), south.start()]);
    // Clients check that the metadata names the URL they asked: the gateway's public URL is where it listens.
    const port = await freePort();
    gateway = await startGateway(northAndSouthRegistry(north, south), { publicUrl: `http://127.0.0.1:${port}` }, true, port);
  });

  afterAll(async () => {
    await gateway.close();
    await Promise.all([north.stop(), south.stop()]);
  });

  const anonymous = (path: string) => anonymousAt(gateway.url, path);
  const anonymousAt = (base: string, path: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  it('answers a call without a token with 401 naming the metadata of the endpoint called', async () => {
    for (const [path, metadata] of [
      ['/servers/alpha/mcp', '/.well-known/oauth-protected-resource/servers/alpha/mcp'],
      ['/mcp', '/.well-known/oauth-protected-resource/mcp'],
    ] as const) {
      const answer = await anonymous(path);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe(`Bearer realm="mcp-gateway", resource_metadata="${gateway.url}${metadata}"`);
      expect(extractResourceMetadataUrl(answer)?.href).toBe(`${gateway.url}${metadata}`);
    }
  });

  it('serves the metadata the v2 client discovers: the resource and the identity provider that issues its tokens', async () => {
    const metadata = await discoverOAuthProtectedResourceMetadata(`${gateway.url}/servers/alpha/mcp`);
    expect(metadata).toMatchObject({
      resource: `${gateway.url}/servers/alpha/mcp`,
      authorization_servers: [TEST_AUTHORIZATION_SERVER],
      bearer_methods_supported: ['header'],
      resource_name: 'Alpha tools',
    });
    expect((await discoverOAuthProtectedResourceMetadata(`${gateway.url}/mcp`)).resource).toBe(`${gateway.url}/mcp`);
  });

  it('names the configured public URL whatever Host a request claims', async () => {
    const metadata = await getWithHost(`${gateway.url}/.well-known/oauth-protected-resource/servers/alpha/mcp`, 'attacker.example');
    expect(metadata.status).toBe(200);
    expect(JSON.parse(metadata.body).resource).toBe(`${gateway.url}/servers/alpha/mcp`);
    expect(metadata.body).not.toContain('attacker.example');
    const challenge = await getWithHost(`${gateway.url}/mcp`, 'attacker.example', { 'x-forwarded-proto': 'https' });
    expect(challenge.status).toBe(401);
    expect(challenge.headers['www-authenticate']).toBe(`Bearer realm="mcp-gateway", resource_metadata="${gateway.url}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('puts the well-known path before a public URL with a path, as RFC 9728 does', async () => {
    const behindProxy = await startGateway(northAndSouthRegistry(north, south), { publicUrl: 'https://tools.example.com/mcp-gateway/' });
    try {
      const metadata = await fetch(`${behindProxy.url}/.well-known/oauth-protected-resource/mcp`);
      expect(((await metadata.json()) as { resource: string }).resource).toBe('https://tools.example.com/mcp-gateway/mcp');
      expect((await anonymousAt(behindProxy.url, '/servers/alpha/mcp')).headers.get('www-authenticate')).toContain(
        'resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp-gateway/servers/alpha/mcp"',
      );
    } finally {
      await behindProxy.close();
    }
  });

  it('knows no metadata for a server that does not exist', async () => {
    expect((await fetch(`${gateway.url}/.well-known/oauth-protected-resource/servers/nowhere/mcp`)).status).toBe(404);
  });
});

/** fetch() sets Host itself: a raw request sends the one an attacker would. */
function getWithHost(
  url: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const sent = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'GET', headers: { ...headers, host } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    sent.on('error', reject).end();
  });
}
