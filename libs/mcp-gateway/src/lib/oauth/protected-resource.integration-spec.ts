// How an MCP client finds where to sign a person in: the 401's Bearer challenge points at the
// OAuth protected resource metadata (RFC 9728) of the endpoint it called, which names the
// identity provider — read with the official v2 client's own discovery functions.
import { discoverOAuthProtectedResourceMetadata, extractResourceMetadataUrl } from '@modelcontextprotocol/client';
import { northAndSouthRegistry, startGateway, TEST_AUTHORIZATION_SERVER, TestGateway } from '../transports/testing/test-gateway';
import { SseUpstream, StreamableUpstream } from '../transports/testing/test-upstreams';

describe('OAuth protected resource metadata for MCP clients', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  let gateway: TestGateway;

  beforeAll(async () => {
    await Promise.all([north.start(), south.start()]);
    gateway = await startGateway(northAndSouthRegistry(north, south), {});
  });

  afterAll(async () => {
    await gateway.close();
    await Promise.all([north.stop(), south.stop()]);
  });

  const anonymous = (path: string) =>
    fetch(`${gateway.url}${path}`, {
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

  it('knows no metadata for a server that does not exist', async () => {
    expect((await fetch(`${gateway.url}/.well-known/oauth-protected-resource/servers/nowhere/mcp`)).status).toBe(404);
  });
});
