// A third-party upstream protected by OAuth, as people meet it through the gateway: each person
// connects their own account once, in a real browser (Chromium), at the upstream's authorisation
// server the gateway found and registered itself at; then the upstream is called with that
// person's token. The test's own authorisation server and MCP server run in a child process.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RunningService, startService } from '@arbor/platform';
import {
  consentAtThirdParty,
  createTestDatabase,
  freePort,
  launchTestBrowser,
  startTestControlPlane,
  startThirdPartyOAuthUpstream,
  TestControlPlane,
  TestDatabase,
  testIssuer,
  type ThirdPartyOAuthUpstream,
} from '@arbor/testing';
import { mcpGatewayService } from './mcp-gateway.module';

async function callWhoami(url: string, credential: string): Promise<{ text: string; isError: boolean }> {
  const client = new Client({ name: 'upstream-oauth-spec', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    return { text: (result.content as { text: string }[])[0]?.text ?? '', isError: result.isError === true };
  } finally {
    await client.close();
  }
}

describe('a third-party upstream protected by OAuth, connected once per person', () => {
  let thirdParty: ThirdPartyOAuthUpstream;
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  let gateway: RunningService<InstanceType<typeof mcpGatewayService.schema>>;
  let browser: Browser;
  let server: string;

  const api = async (method: string, route: string, token: string) => {
    const response = await fetch(`${gateway.url}${route}`, { method, headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as { connections?: { upstream: string; connected: boolean; connect_url: string }[] } };
  };

  /**
   * Opens a connect link in Chromium: signs in at the suite's identity provider as `person` (the
   * gateway confirms who opened the link), then at the third party's login form as `login`; the
   * gateway's page at the end.
   */
  async function connectInBrowser(link: string, person: 'alice' | 'bob', login: string): Promise<string> {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(link);
      await signInAtSuite(page, person);
      await consentAtThirdParty(page, login);
      await page.waitForURL(`${gateway.url}/oauth/callback?**`);
      return (await page.textContent('main')) ?? '';
    } finally {
      await context.close();
    }
  }

  async function signInAtSuite(page: Page, person: string): Promise<void> {
    await page.fill('#username', person);
    await page.fill('#password', person);
    await page.click('button[name="login"]');
  }

  beforeAll(async () => {
    [thirdParty, browser] = await Promise.all([startThirdPartyOAuthUpstream(), launchTestBrowser()]);
    controlPlane = await startTestControlPlane();
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer', 'mcp-gateway.operator'] } });
    await controlPlane.grant('bob', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    const config = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-upstream-oauth-')), 'config.yaml');
    writeFileSync(
      config,
      `upstreams:
  - name: wiki
    url: "${thirdParty.url}"
    auth: { type: oauth }
  - name: wiki-for-machines
    url: "${thirdParty.url}"
    auth: { type: oauth, client_id: wiki-machines, client_secret: wiki-machines-secret, client_credentials: true }
servers:
  - { id: tools, project: alpha, name: Tools, upstreams: [{ upstream: wiki }] }
  - { id: machines, project: alpha, name: For machines, upstreams: [{ upstream: wiki-for-machines }] }
`,
    );
    database = await createTestDatabase();
    const port = await freePort();
    gateway = await startService(mcpGatewayService, {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_LISTEN_ADDR: `127.0.0.1:${port}`,
      MCPGW_PUBLIC_URL: `http://127.0.0.1:${port}`,
      MCPGW_LOG: 'off',
      MCPGW_CONFIG: config,
      MCPGW_SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
      MCPGW_OIDC_CLIENT_ID: 'mcp-gateway',
      MCPGW_OIDC_CLIENT_SECRET: 'dev-mcp-gateway-secret',
    });
    server = `${gateway.url}/servers/tools/mcp`;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await controlPlane?.stop();
    await thirdParty?.stop();
    await database?.drop();
  });

  it('asks the first person to call, before anyone has connected, to connect: the tool is there to call by name', async () => {
    const refusedBefore = thirdParty.refused();
    const first = await callWhoami(server, controlPlane.tokens.bob);
    expect(first).toEqual({
      isError: true,
      text: expect.stringMatching(/^Connect your account at upstream "wiki" first: http:\/\/127\.0\.0\.1:\d+\/oauth\/connect\/wiki\?ticket=/),
    });
    expect(thirdParty.refused()).toBe(refusedBefore);
  });

  it('connects alice in the browser from her connections, then calls the upstream with her token', async () => {
    const before = await api('GET', '/api/v1/me/connections', controlPlane.tokens.alice);
    expect(before.status).toBe(200);
    const wiki = before.body.connections?.find((connection) => connection.upstream === 'wiki');
    expect(wiki).toEqual(expect.objectContaining({ connected: false, connect_url: expect.stringContaining(`${gateway.url}/oauth/connect/wiki?ticket=`) }));

    expect(await connectInBrowser(wiki!.connect_url, 'alice', 'alice-at-the-wiki')).toContain('Your account at upstream "wiki" is connected');
    expect((await api('GET', '/api/v1/me/connections', controlPlane.tokens.alice)).body.connections).toContainEqual(expect.objectContaining({ upstream: 'wiki', connected: true }));

    expect(await callWhoami(server, controlPlane.tokens.alice)).toEqual({ text: expect.stringMatching(/^wiki account alice-at-the-wiki /), isError: false });
    // The tokens are in the database sealed, never in plaintext.
    const rows = (await gateway.app.get(DataSource).query('select tokens_ciphertext from oauth_connections')) as { tokens_ciphertext: Buffer }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokens_ciphertext.toString('latin1')).not.toMatch(/eyJ/);
  });

  it('gives bob, not yet connected, a tool error holding his link, never a call with anyone else’s token; once connected, his own account', async () => {
    const refusedBefore = thirdParty.refused();
    const first = await callWhoami(server, controlPlane.tokens.bob);
    expect(first.isError).toBe(true);
    expect(first.text).toMatch(/^Connect your account at upstream "wiki" first: http:\/\/127\.0\.0\.1:\d+\/oauth\/connect\/wiki\?ticket=/);
    expect(thirdParty.refused()).toBe(refusedBefore);

    const link = /(http:\/\/\S+)$/.exec(first.text)![1]!;
    expect(await connectInBrowser(link, 'bob', 'bob-at-the-wiki')).toContain('is connected');
    expect(await callWhoami(server, controlPlane.tokens.bob)).toEqual({ text: expect.stringMatching(/^wiki account bob-at-the-wiki /), isError: false });
    expect(await callWhoami(server, controlPlane.tokens.alice)).toEqual({ text: expect.stringMatching(/^wiki account alice-at-the-wiki /), isError: false });
  });

  it("renews a person's expired token with the refresh token, without asking them again", async () => {
    const dataSource = gateway.app.get(DataSource);
    const before = (await dataSource.query("select tokens_ciphertext from oauth_connections where upstream = 'wiki' and subject <> ''")) as { tokens_ciphertext: Buffer }[];
    await dataSource.query("update oauth_connections set expires_at = now() - interval '1 minute' where upstream = 'wiki'");
    expect(await callWhoami(server, controlPlane.tokens.alice)).toEqual({ text: expect.stringMatching(/^wiki account alice-at-the-wiki /), isError: false });
    const after = (await dataSource.query("select tokens_ciphertext, expires_at from oauth_connections where upstream = 'wiki' and subject <> ''")) as {
      tokens_ciphertext: Buffer;
      expires_at: Date;
    }[];
    expect(after.some((row) => row.expires_at.getTime() > Date.now())).toBe(true);
    expect(after.map((row) => row.tokens_ciphertext.toString('hex'))).not.toEqual(before.map((row) => row.tokens_ciphertext.toString('hex')));
  });

  it('serves an MCP API key with the client-credentials grant where the upstream allows it, and refuses it where not', async () => {
    const created = await fetch(`${gateway.url}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${controlPlane.tokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'alpha', name: 'ci' }),
    });
    const { key } = (await created.json()) as { key: string };
    expect(await callWhoami(`${gateway.url}/servers/machines/mcp`, key)).toEqual({ text: expect.stringMatching(/^wiki account wiki-machines /), isError: false });
    const refused = await callWhoami(server, key);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/Upstream "wiki" is used with each person's own account \(OAuth\), and this caller is no person/);
  });

  it('lets a person disconnect: their next call asks them to connect again, the others keep theirs', async () => {
    expect((await api('DELETE', '/api/v1/me/connections/wiki', controlPlane.tokens.bob)).status).toBe(204);
    expect((await api('DELETE', '/api/v1/me/connections/wiki', controlPlane.tokens.bob)).status).toBe(404);
    expect((await callWhoami(server, controlPlane.tokens.bob)).text).toMatch(/^Connect your account at upstream "wiki" first/);
    expect((await callWhoami(server, controlPlane.tokens.alice)).text).toMatch(/^wiki account alice-at-the-wiki /);
  });

  it('stops a connect link opened by someone other than the person it was made for, before any consent', async () => {
    const link = /(http:\/\/\S+)$/.exec((await callWhoami(server, controlPlane.tokens.bob)).text)![1]!;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(link);
      await signInAtSuite(page, 'alice');
      await page.waitForURL(`${gateway.url}/oauth/signed-in?**`);
      expect(await page.textContent('main')).toContain('This connect link was made for another person');
    } finally {
      await context.close();
    }
    expect((await callWhoami(server, controlPlane.tokens.bob)).text).toMatch(/^Connect your account at upstream "wiki" first/);
  });

  it('refuses a connect link that was tampered with', async () => {
    const page = await fetch(`${gateway.url}/oauth/connect/wiki?ticket=AAAA.BBBB.CCCC.DDDD`, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('This connect link is not valid or has expired');
  });
});
