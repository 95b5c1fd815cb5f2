// A third-party upstream protected by OAuth, for the MCP gateway's tests: an authorisation server
// (panva's oidc-provider with open dynamic client registration and its development login form)
// and an MCP server (the official SDK) that accepts only that server's tokens issued for itself
// (jose against its JWKS), naming itself in RFC 9728 protected resource metadata. Run as a child
// process (both are ES modules); prints "ready <issuer> <mcp url>".
import { createServer } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import Provider, { errors } from 'oidc-provider';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const authorisationServer = createServer();
const toolServer = createServer();
const issuer = `http://127.0.0.1:${await listen(authorisationServer)}`;
const resource = `http://127.0.0.1:${await listen(toolServer)}/mcp`;
const SCOPE = 'wiki:read';

const provider = new Provider(issuer, {
  clients: [{ client_id: 'wiki-machines', client_secret: 'wiki-machines-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }],
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    revocation: { enabled: true },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => resource,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => {
        if (indicator !== resource) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
        return { scope: SCOPE, audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: 300, jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  scopes: ['openid', 'offline_access', SCOPE],
  pkce: { required: () => true },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  cookies: { keys: ['third-party-upstream-test'] },
});
const callback = provider.callback();
authorisationServer.on('request', (req, res) => {
  // RFC 8414's metadata at its own well-known path too (oidc-provider serves OpenID's).
  if (req.url === '/.well-known/oauth-authorization-server') req.url = '/.well-known/openid-configuration';
  callback(req, res);
});

const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
const metadataPath = `/.well-known/oauth-protected-resource${new URL(resource).pathname}`;
toolServer.on('request', async (req, res) => {
  if (req.url === metadataPath) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: [SCOPE] }));
    return;
  }
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(token ?? '', jwks, { issuer, audience: resource }));
  } catch {
    process.stdout.write('refused\n');
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${new URL(metadataPath, resource)}"` }).end();
    return;
  }
  const mcp = new McpServer({ name: 'wiki', version: '1.0.0' });
  mcp.registerTool('whoami', { description: 'Who the wiki thinks is calling', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: `wiki account ${claims.sub} (${claims.client_id ?? claims.azp ?? 'client'})` }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => void transport.close());
  await mcp.connect(transport);
  await transport.handleRequest(req, res);
});

process.on('SIGTERM', () => process.exit(0));
process.stdout.write(`ready ${issuer} ${resource}\n`);
