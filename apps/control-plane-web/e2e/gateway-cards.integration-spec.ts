// The suite dashboard with the real products: the BUILT AI gateway and MCP gateway as processes,
// told where the control plane is (whose origin their CORS allows by default), and a person who
// may see project alpha in both. Their cards answer with that person's figures.
import { BuiltService, createTestDatabase, freePort, launchTestBrowser, startBuiltService, startUiTestStack, type UiTestStack } from '@arbor/testing';
import type { Browser } from 'playwright-core';

describe('the suite dashboard in Chromium with both gateways running', () => {
  let stack: UiTestStack;
  let aiGateway: BuiltService;
  let mcpGateway: BuiltService;
  let browser: Browser;
  const drops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const [aiPort, mcpPort] = [await freePort(), await freePort()];
    stack = await startUiTestStack({ CP_SUITE_AI_GATEWAY_URL: `http://127.0.0.1:${aiPort}`, CP_SUITE_MCP_GATEWAY_URL: `http://127.0.0.1:${mcpPort}` });
    const admin = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${stack.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${await stack.token('admin')}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string };
    };
    await admin('POST', '/api/v1/projects', { slug: 'alpha', name: 'Alpha' });
    const alice = await fetch(`${stack.url}/api/v1/me`, { headers: { authorization: `Bearer ${await stack.token('alice')}` } });
    const { id } = (await alice.json()) as { id: string };
    await admin('PUT', `/api/v1/users/${id}/permissions`, {
      workspace: ['ai-gateway', 'mcp-gateway'],
      projects: { alpha: ['ai-gateway.viewer', 'mcp-gateway.viewer'] },
    });
    const [aiDatabase, mcpDatabase] = [await createTestDatabase('arbor_ui_ai'), await createTestDatabase('arbor_ui_mcp')];
    drops.push(
      () => aiDatabase.drop(),
      () => mcpDatabase.drop(),
    );
    aiGateway = await startBuiltService(
      'ai-gateway',
      'AIGW_LISTEN_ADDR',
      {
        AIGW_DATABASE_URL: aiDatabase.url,
        AIGW_LOG: 'off',
        AIGW_OIDC_ISSUER_URL: stack.issuer,
        AIGW_CONTROL_PLANE_URL: stack.url,
        AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m',
        AIGW_M2M_CLIENT_SECRET: 'dev-ai-gateway-m2m-secret',
      },
      aiPort,
    );
    mcpGateway = await startBuiltService(
      'mcp-gateway',
      'MCPGW_LISTEN_ADDR',
      {
        MCPGW_DATABASE_URL: mcpDatabase.url,
        MCPGW_LOG: 'off',
        MCPGW_OIDC_ISSUER_URL: stack.issuer,
        MCPGW_CONTROL_PLANE_URL: stack.url,
        MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
        MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
      },
      mcpPort,
    );
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await aiGateway?.kill('SIGTERM');
    await mcpGateway?.kill('SIGTERM');
    for (const drop of drops) await drop().catch(() => undefined);
    await stack?.stop();
  });

  it("shows alice the AI gateway's and the MCP gateway's cards answering with project alpha's figures", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    await page.goto(stack.url);
    await page.getByLabel('Username or email').fill('alice');
    await page.getByLabel('Password').fill('alice');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const card = (product: string) => page.locator(`section[data-product="${product}"]`);
    await card('ai-gateway').and(page.locator('[data-state="ok"]')).waitFor();
    await card('mcp-gateway').and(page.locator('[data-state="ok"]')).waitFor();
    const ai = await card('ai-gateway').innerText();
    expect(ai).toMatch(/Spend today\s+\$0\.00\s+alpha: \$0\.00/);
    expect(ai).toMatch(/Calls, last 24 h\s+0/);
    const mcp = await card('mcp-gateway').innerText();
    expect(mcp).toMatch(/Virtual servers\s+0\s+alpha: 0/);
    await page.close();
  });
});
