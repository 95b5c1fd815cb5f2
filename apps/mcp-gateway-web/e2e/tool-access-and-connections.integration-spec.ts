// Who may call which tool, and upstreams that see the person, as people meet them in the MCP
// gateway's UI (the BUILT mcp-gateway serving the built UI, in Chromium): an operator makes a tool
// need the operator role and limits another, and a viewer's MCP client then lacks the one and is
// refused the second call of the other; a key limited to one tool in the key form sees only it; a
// person connects their own account at a third-party upstream protected by OAuth from My
// connections, is called with it, revokes it there and is asked to connect again; the operator
// reads those calls in the audit and sets an upstream's auth. One browser, one stack for the file.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  consentAtThirdParty,
  freePort,
  launchTestBrowser,
  seriousAccessibilityViolationsInBothThemes,
  signInAtDevIdp,
  startBuiltMcpGateway,
  startMcpEverythingServer,
  startThirdPartyOAuthUpstream,
  startUiTestStack,
  type BuiltMcpGateway,
  type McpEverythingProcess,
  type ThirdPartyOAuthUpstream,
  type UiTestStack,
} from '@arbor/testing';

describe('tool access and per-person connections in the MCP gateway’s web UI, in Chromium', () => {
  let stack: UiTestStack;
  let everything: McpEverythingProcess;
  let wiki: ThirdPartyOAuthUpstream;
  let gateway: BuiltMcpGateway;
  let browser: Browser;
  /** alice's page: she operates the workspace's gateway and project alpha's servers. */
  let page: Page;
  /** Uncaught errors the pages reported. */
  const problems: string[] = [];

  /** A form field by its label (a required one's label ends in an asterisk). */
  const field = (within: Locator | Page, label: string) => within.getByLabel(new RegExp(`^${label}\\s*\\*?$`));

  const goTo = async (on: Page, link: string, heading: string) => {
    await on.getByRole('navigation', { name: 'MCP gateway' }).getByRole('link', { name: link }).click();
    await on.getByRole('heading', { level: 2, name: heading }).waitFor();
  };

  /** A new browser session signed in at the identity provider's form, straight at the gateway's UI. */
  async function signedInAtGateway(username: string): Promise<Page> {
    const signedIn = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    signedIn.on('pageerror', (error) => problems.push(error.message));
    await signedIn.goto(gateway.url);
    await signInAtDevIdp(signedIn, username);
    await signedIn.getByRole('heading', { level: 2, name: 'Virtual servers' }).waitFor();
    return signedIn;
  }

  /** An MCP client of the official SDK on a virtual server, with a person's token or an API key. */
  async function mcpClient(serverId: string, credential: string): Promise<Client> {
    const client = new Client({ name: 'ui-access-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/servers/${serverId}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }),
    );
    return client;
  }

  const toolNames = async (serverId: string, credential: string) => {
    const client = await mcpClient(serverId, credential);
    try {
      return (await client.listTools()).tools.map((tool) => tool.name);
    } finally {
      await client.close();
    }
  };

  /** Bob asks the wiki who he is; the text of its answer (or of the tool error). */
  const bobAtTheWiki = async () => {
    const client = await mcpClient('wiki', await stack.token('bob'));
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      return { text: (result.content as { text: string }[])[0]?.text ?? '', isError: result.isError === true };
    } finally {
      await client.close();
    }
  };

  beforeAll(async () => {
    const gatewayPort = await freePort();
    const gatewayOrigin = `http://127.0.0.1:${gatewayPort}`;
    stack = await startUiTestStack({ CP_SUITE_MCP_GATEWAY_URL: gatewayOrigin }, { uiClients: { 'arbor-mcp-gateway': gatewayOrigin } });
    await stack.asAdmin('POST', '/api/v1/projects', { slug: 'alpha', name: 'Alpha' });
    await stack.grant('alice', { workspace: ['mcp-gateway', 'mcp-gateway.operator'], projects: { alpha: ['mcp-gateway.operator'] } });
    await stack.grant('bob', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    await stack.grant('carol', { workspace: [], projects: {} });
    [everything, wiki] = await Promise.all([startMcpEverythingServer(), startThirdPartyOAuthUpstream()]);
    gateway = await startBuiltMcpGateway(stack, {
      port: gatewayPort,
      config: `upstreams:
  - name: everything
    url: ${everything.url}
  - name: wiki
    url: ${wiki.url}
    auth: { type: oauth }
servers:
  - { id: everything, project: alpha, name: Everything, upstreams: [{ upstream: everything }] }
  - { id: wiki, project: alpha, name: Wiki, upstreams: [{ upstream: wiki }] }
`,
      // The confidential client with which a connect link confirms who opened it.
      env: { MCPGW_OIDC_CLIENT_ID: 'mcp-gateway', MCPGW_OIDC_CLIENT_SECRET: 'dev-mcp-gateway-secret' },
    });
    browser = await launchTestBrowser();
    page = await signedInAtGateway('alice');
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await everything?.stop();
    await wiki?.stop();
    await stack?.stop();
  });

  it("makes a tool need the operator role and limits another in the server form: a viewer's client lacks the one and is refused the second call of the other", async () => {
    await page.getByRole('button', { name: 'New virtual server' }).click();
    const form = page.getByRole('form', { name: 'New virtual server' });
    await field(form, 'Id').fill('team');
    await field(form, 'Name').fill('Team');
    await field(form, 'Upstreams').click();
    await page.getByRole('option', { name: 'everything' }).click();
    await page.keyboard.press('Escape');
    const access = form.getByRole('table', { name: 'Tool access' });
    await access.locator('tr[data-tool-access="echo"]').waitFor();
    await access.getByLabel('Role echo needs').click();
    await page.getByRole('option', { name: 'Operator' }).click();
    await access.getByLabel('Calls a minute of test_simple_text').fill('1');
    expect(await seriousAccessibilityViolationsInBothThemes(page)).toEqual([]);
    await form.getByRole('button', { name: 'Make server' }).click();
    const row = page.locator('tr[data-server="team"]');
    await row.waitFor();
    expect(await row.innerText()).toMatch(/echo: operators only[\s\S]*test_simple_text: 1 a minute/);

    const bob = await stack.token('bob');
    const viewerSees = await toolNames('team', bob);
    expect(viewerSees).toContain('test_simple_text');
    expect(viewerSees).not.toContain('echo');
    expect(await toolNames('team', await stack.token('alice'))).toContain('echo');
    const client = await mcpClient('team', bob);
    try {
      await expect(client.callTool({ name: 'echo', arguments: { message: 'hi' } })).rejects.toThrow(/echo not found/);
      expect(await client.callTool({ name: 'test_simple_text', arguments: {} })).toMatchObject({ content: [{ type: 'text' }] });
      await expect(client.callTool({ name: 'test_simple_text', arguments: {} })).rejects.toThrow(/rate limit|-32029/i);
    } finally {
      await client.close();
    }

    // Back in the form, the settings are as saved.
    await row.getByRole('button', { name: 'Edit team' }).click();
    const edit = page.getByRole('form', { name: 'Settings of team' });
    expect(await edit.getByLabel('Calls a minute of test_simple_text').inputValue()).toBe('1');
    await edit.getByRole('button', { name: 'Cancel' }).click();
  });

  it('limits a new API key to one tool in the key form: the list says so and the key’s client sees and calls only it', async () => {
    await goTo(page, 'API keys', 'API keys');
    const form = page.getByRole('form', { name: 'New key' });
    await field(form, 'Name').fill('echo agent');
    await field(form, 'Limited to the tools').click();
    await page.getByRole('option', { name: 'echo', exact: true }).click();
    await page.keyboard.press('Escape');
    await form.getByRole('button', { name: 'Make key' }).click();
    const secret = (await page.getByTestId('new-key-secret').innerText()).trim();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByRole('row', { name: /echo agent/ }).innerText()).toMatch(/alpha\s+echo\s/);

    expect(await toolNames('everything', secret)).toEqual(['echo']);
    const client = await mcpClient('everything', secret);
    try {
      await expect(client.callTool({ name: 'test_simple_text', arguments: {} })).rejects.toThrow(/test_simple_text not found/);
      expect(await client.callTool({ name: 'echo', arguments: { message: 'scoped' } })).toMatchObject({ content: [{ type: 'text', text: 'Echo: scoped' }] });
    } finally {
      await client.close();
    }
    expect(await seriousAccessibilityViolationsInBothThemes(page)).toEqual([]);
  });

  it('lets bob connect his own wiki account from My connections in the browser, be called with it, revoke it there and be asked to connect again', async () => {
    const bobsPage = await signedInAtGateway('bob');
    await goTo(bobsPage, 'My connections', 'My connections');
    const row = bobsPage.locator('tr[data-connection="wiki"]');
    await row.getByText('not connected').waitFor();
    const [consent] = await Promise.all([bobsPage.waitForEvent('popup'), row.getByRole('link', { name: 'Connect to wiki' }).click()]);
    // The suite's identity provider knows bob in this browser already; the wiki asks him to sign in there and consent.
    await consent.locator('input[name="login"]').waitFor();
    await consentAtThirdParty(consent, 'bob-at-the-wiki');
    await consent.waitForURL(`${gateway.url}/oauth/callback?**`);
    expect(await consent.textContent('main')).toContain('Your account at upstream "wiki" is connected');
    await consent.close();

    await bobsPage.reload();
    await row.getByText('connected', { exact: true }).waitFor();
    expect(await row.innerText()).toContain('wiki:read');
    expect(await bobAtTheWiki()).toEqual({ text: expect.stringMatching(/^wiki account bob-at-the-wiki /), isError: false });
    expect(await seriousAccessibilityViolationsInBothThemes(bobsPage)).toEqual([]);

    await row.getByRole('button', { name: 'Revoke your connection to wiki' }).click();
    await bobsPage.getByRole('dialog', { name: 'Revoke your connection to wiki?' }).getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('not connected').waitFor();
    expect(await bobAtTheWiki()).toEqual({ text: expect.stringMatching(/^Connect your account at upstream "wiki" first: /), isError: true });
    await bobsPage.context().close();
  });

  it("shows the team server's operators who called which tool of which upstream, how it ended and how long it took", async () => {
    await goTo(page, 'Tool calls', 'Tool calls');
    await page.getByRole('combobox', { name: 'Virtual server' }).click();
    await page.getByRole('option', { name: 'Team (alpha)' }).click();
    const audit = page.getByRole('table', { name: 'Audit of tool calls' });
    const limited = audit.getByRole('row').filter({ hasText: 'rate limited' });
    await limited.waitFor();
    // The badge is in capitals on the page.
    expect(await limited.innerText()).toMatch(/^.*\d\d:\d\d.*\s+bob\s+person\s+everything\s+test_simple_text\s+rate limited\s+error -32029\s+[\d.]+ ms$/i);
    expect(await audit.getByRole('row').filter({ hasText: 'denied' }).innerText()).toMatch(/bob\s+person\s+everything\s+echo\s+denied/i);
    expect(
      await audit
        .getByRole('row')
        .filter({ has: page.getByText('ok', { exact: true }) })
        .innerText(),
    ).toMatch(/bob\s+person\s+everything\s+test_simple_text\s+ok/i);
    expect(await seriousAccessibilityViolationsInBothThemes(page)).toEqual([]);
  });

  it("sets an upstream's auth as the admin API takes it: a token exchange needs its audience, an OAuth client secret is never shown", async () => {
    await goTo(page, 'Upstreams', 'Upstreams');
    await page.getByRole('button', { name: 'Register an upstream' }).click();
    const form = page.getByRole('form', { name: 'New upstream' });
    await field(form, 'Name').fill('tool-server');
    await field(form, 'Address').fill(everything.url);
    await form.getByRole('radiogroup', { name: 'Authentication' }).getByText('The calling person (token exchange)').click();
    await form.getByRole('button', { name: 'Register' }).click();
    await form.getByText(/auth\.audience/).waitFor();
    await field(form, 'Audience').fill('arbor-tool-server');
    await form.getByRole('button', { name: 'Register' }).click();
    const row = page.locator('tr[data-upstream="tool-server"]');
    await row.waitFor();
    expect(await row.innerText()).toContain('auth: the calling person, by token exchange for arbor-tool-server');

    await row.getByRole('button', { name: 'Edit tool-server' }).click();
    const edit = page.getByRole('form', { name: 'Settings of tool-server' });
    expect(await field(edit, 'Audience').inputValue()).toBe('arbor-tool-server');
    await edit.getByRole('radiogroup', { name: 'Authentication' }).getByText("Each person's account (OAuth)").click();
    await edit.getByRole('radiogroup', { name: 'OAuth client' }).getByText('A client registered there').click();
    await field(edit, 'Client id').fill('tools-client');
    await field(edit, 'Client secret').fill('client-s3cret');
    await edit.getByText('API keys get a token with the client-credentials grant (needs the secret)').click();
    expect(await seriousAccessibilityViolationsInBothThemes(page)).toEqual([]);
    await edit.getByRole('button', { name: 'Save' }).click();
    await row.getByText(/client tools-client; API keys by client credentials/).waitFor();
    expect(await page.content()).not.toContain('client-s3cret');

    // The stored secret stays stored when the form is saved again without one.
    await row.getByRole('button', { name: 'Edit tool-server' }).click();
    const again = page.getByRole('form', { name: 'Settings of tool-server' });
    await again.getByText('Stored encrypted; empty keeps it').waitFor();
    await again.getByRole('button', { name: 'Save' }).click();
    await row.getByText(/client tools-client; API keys by client credentials/).waitFor();

    await row.getByRole('button', { name: 'Remove tool-server' }).click();
    await page.getByRole('dialog', { name: 'Remove tool-server?' }).getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
  });

  it('shows carol, without a role, which role would let her connect her accounts', async () => {
    const carols = await signedInAtGateway('carol');
    await goTo(carols, 'My connections', 'My connections');
    await carols.getByText('No MCP gateway role on any project').waitFor();
    expect(await carols.getByRole('main').innerText()).toMatch(/mcp-gateway\.viewer/);
    expect(await seriousAccessibilityViolationsInBothThemes(carols)).toEqual([]);
    await carols.context().close();
    expect(problems).toEqual([]);
  });
});
