// The MCP gateway's Agents page as its people meet it, in Chromium against the BUILT mcp-gateway
// serving the built UI: an operator registers tools/demo-agent (built with the official A2A SDK)
// and sees its skills, status and gateway addresses, an address the guard refuses is named beside
// the field, a call through the gateway with the official A2A client is counted on the page; a
// viewer reads, a person without a role is told which role would let them in.
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  a2aClientWithToken,
  a2aTextMessage,
  seriousAccessibilityViolationsInBothThemes,
  BuiltService,
  createTestDatabase,
  type DemoAgentProcess,
  freePort,
  launchTestBrowser,
  seriousAccessibilityViolations,
  signInAtDevIdp,
  startBuiltService,
  startDemoAgent,
  startUiTestStack,
  TestDatabase,
  type UiTestStack,
} from '@arbor/testing';

const SCREENSHOTS = path.resolve(__dirname, '../../../tmp/test-output/mcp-gateway-web');
const AGENT_TOKEN = 'agent-ui-s3cret';

describe("the MCP gateway's Agents page in Chromium", () => {
  let stack: UiTestStack;
  let agent: DemoAgentProcess;
  let database: TestDatabase;
  let gateway: BuiltService;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  /** A form field by its label (a required one's label ends in an asterisk). */
  const field = (within: Locator | Page, label: string) => within.getByLabel(new RegExp(`^${label}\\s*\\*?$`));

  /** A new browser session signed in at the identity provider's form, on the gateway's Agents page. */
  async function signedInOnAgents(username: string): Promise<Page> {
    const opened = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    opened.on('pageerror', (error) => problems.push(error.message));
    await opened.goto(`${gateway.url}/agents`);
    await signInAtDevIdp(opened, username);
    await opened.getByRole('heading', { level: 2, name: 'Agents' }).waitFor();
    return opened;
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const gatewayPort = await freePort();
    const gatewayOrigin = `http://127.0.0.1:${gatewayPort}`;
    stack = await startUiTestStack({ CP_SUITE_MCP_GATEWAY_URL: gatewayOrigin }, { uiClients: { 'arbor-mcp-gateway': gatewayOrigin } });
    await stack.asAdmin('POST', '/api/v1/projects', { slug: 'alpha', name: 'Alpha' });
    // alice runs alpha's agents, bob reads them, carol has no role in the gateway.
    await stack.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.operator'] } });
    await stack.grant('bob', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    await stack.grant('carol', { workspace: [], projects: {} });
    agent = await startDemoAgent({ token: AGENT_TOKEN });
    database = await createTestDatabase('arbor_ui_mcpgw_agents');
    gateway = await startBuiltService(
      'mcp-gateway',
      'MCPGW_LISTEN_ADDR',
      {
        MCPGW_DATABASE_URL: database.url,
        MCPGW_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
        MCPGW_LOG: 'off',
        MCPGW_OIDC_ISSUER_URL: stack.issuer,
        MCPGW_CONTROL_PLANE_URL: stack.url,
        MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
        MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
        MCPGW_PUBLIC_URL: gatewayOrigin,
      },
      gatewayPort,
    );
    browser = await launchTestBrowser();
    page = await signedInOnAgents('alice');
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.kill('SIGTERM');
    await database?.drop().catch(() => undefined);
    await agent?.stop();
    await stack?.stop();
  });

  it('registers the demo agent from its address: the guard refuses a metadata address beside the field, the header value is never shown', async () => {
    await page.getByText('No agents yet').waitFor();
    await page.getByRole('button', { name: 'Register an agent' }).click();
    const form = page.getByRole('form', { name: 'New agent' });
    await field(form, 'Name').fill('cloud');
    await field(form, 'Address').fill('http://169.254.169.254/');
    await form.getByRole('button', { name: 'Register' }).click();
    // The API's words for `url`, as the Address field's error (aria-describedby), not a banner.
    await form.getByText(/The card could not be read: .*metadata/).waitFor();
    expect(await field(form, 'Address').getAttribute('aria-invalid')).toBe('true');

    await field(form, 'Name').fill('helpdesk');
    await field(form, 'Address').fill(agent.url);
    await field(form, 'Description').fill('The company helpdesk.');
    await field(form, 'Auth').click();
    await page.getByRole('option', { name: 'Static headers' }).click();
    await form.getByRole('button', { name: 'Add a header' }).click();
    await field(form, 'Header name').fill('Authorization');
    await field(form, 'Header value').fill(`Bearer ${AGENT_TOKEN}`);
    await form.getByRole('button', { name: 'Register' }).click();

    const row = page.locator('tr[data-agent="helpdesk"]');
    await row.waitFor();
    await row.getByText('up', { exact: true }).waitFor();
    expect(await row.innerText()).toMatch(/helpdesk[\s\S]*Helpdesk agent 1\.0\.0[\s\S]*The company helpdesk\.[\s\S]*auth: static \(authorization\)[\s\S]*alpha/);
    expect(await row.getByRole('list', { name: 'Skills of helpdesk' }).innerText()).toBe(
      'Answer questions: Answers a question in plain text.\nBook a room: Asks for the date, then books a meeting room.',
    );
    expect(await row.getByRole('code').allInnerTexts()).toEqual([agent.url, `${gateway.url}/agents/helpdesk`, `${gateway.url}/agents/helpdesk/.well-known/agent-card.json`]);
    await row.getByRole('button', { name: 'Copy the card URL of helpdesk' }).waitFor();
    expect(await page.content()).not.toContain(AGENT_TOKEN);
    expect(await page.getByTestId('agent-call-totals').innerText()).toMatch(/^0 calls, 0 failed/);
    expect(await seriousAccessibilityViolationsInBothThemes(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'agents.png'), fullPage: true });
  });

  it("counts a call the official A2A client makes through the gateway's card on the page", async () => {
    const client = await a2aClientWithToken(`${gateway.url}/agents/helpdesk/.well-known/agent-card.json`, await stack.token('alice'));
    const answer = await client.sendMessage(a2aTextMessage('from the UI test'));
    expect('parts' in answer && answer.parts[0]?.content?.$case === 'text' && answer.parts[0].content.value).toBe('You said: from the UI test');

    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Agents' }).waitFor();
    const totals = page.getByTestId('agent-call-totals');
    await totals.waitFor();
    expect(await totals.innerText()).toMatch(/^1 call, 0 failed in the last 24 hours/);
    await page.getByRole('figure', { name: 'Calls by hour' }).locator('.recharts-bar-rectangle').first().waitFor();
    expect(await page.getByRole('figure', { name: 'Mean latency by hour' }).textContent()).toContain('ms');
    expect(await seriousAccessibilityViolationsInBothThemes(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'agent-calls.png'), fullPage: true });
  }, 120_000);

  it('shows a virtual server that offers the agent as a tool on the Virtual servers page', async () => {
    const made = await fetch(`${gateway.url}/api/v1/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await stack.token('alice')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'helpers', project: 'alpha', upstreams: [{ agent: 'helpdesk' }] }),
    });
    expect(made.status).toBe(201);
    await page.getByRole('navigation', { name: 'MCP gateway' }).getByRole('link', { name: 'Virtual servers' }).click();
    const row = page.locator('tr[data-server="helpers"]');
    await row.waitFor();
    expect(await row.innerText()).toContain('agent helpdesk: one tool');
    expect(problems).toEqual([]);
  });

  it('shows bob, a viewer, the agent and its calls read only, and carol, without a role, the role that would let her in', async () => {
    const bob = await signedInOnAgents('bob');
    const row = bob.locator('tr[data-agent="helpdesk"]');
    await row.waitFor();
    expect(await row.innerText()).toContain('read only');
    expect(await bob.getByRole('button', { name: 'Register an agent' }).count()).toBe(0);
    expect(await bob.getByText('Registering and changing agents needs mcp-gateway.operator on their project.').count()).toBe(1);
    await bob.getByTestId('agent-call-totals').waitFor();
    expect(await seriousAccessibilityViolations(bob)).toEqual([]);
    await bob.context().close();

    const carol = await signedInOnAgents('carol');
    await carol.getByText('No MCP gateway role on any project').waitFor();
    expect(await carol.getByRole('main').innerText()).toMatch(/mcp-gateway\.viewer[\s\S]*mcp-gateway\.operator/);
    expect(await seriousAccessibilityViolations(carol)).toEqual([]);
    await carol.context().close();
    expect(problems).toEqual([]);
  }, 120_000);
});
