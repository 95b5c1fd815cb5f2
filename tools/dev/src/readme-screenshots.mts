// `npm run screenshots`: the README's screenshots of every page of the suite's three UIs, taken
// on `npm start`'s stack (suite-in-browser.mts: its ports must be free) in headless Chromium at
// 1280×800, into docs/screenshots/. Before the pictures it makes a few calls with the demo key
// (one to the demo's failing alias) so that the usage, call log and models pages have something
// to show; the MCP gateway's tool calls come from trying `echo` on the Tools page.
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchSuiteBrowser, signedInState, startSuite, SUITE_UIS } from './suite-in-browser.mts';

const root = path.resolve(import.meta.dirname, '../../..');
const out = path.join(root, 'docs/screenshots');
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A page of a UI: where it is, the heading that says it is there, and what to do before the picture. */
interface Shot {
  file: string;
  path: string;
  heading: string;
  prepare?: (page: Page) => Promise<void>;
}

const CONTROL_PLANE: Shot[] = [
  { file: 'control-plane-dashboard', path: '/', heading: 'Dashboard' },
  { file: 'control-plane-my-access', path: '/me', heading: 'My access' },
  { file: 'control-plane-projects', path: '/projects', heading: 'Projects' },
  { file: 'control-plane-users', path: '/users', heading: 'Users' },
  { file: 'control-plane-permissions', path: '/permissions', heading: 'Permissions' },
  { file: 'control-plane-workspace', path: '/workspace', heading: 'Workspace' },
  { file: 'control-plane-sync', path: '/sync', heading: 'Sync deliveries' },
  { file: 'control-plane-audit', path: '/audit', heading: 'Audit log' },
];

const AI_GATEWAY = (demoKey: string): Shot[] => [
  { file: 'ai-gateway-keys', path: '/keys', heading: 'Keys' },
  { file: 'ai-gateway-usage', path: '/usage', heading: 'Usage', prepare: (page) => page.getByRole('figure').first().waitFor() },
  { file: 'ai-gateway-models', path: '/catalogue', heading: 'Models' },
  { file: 'ai-gateway-call-log', path: '/calls', heading: 'Call log', prepare: (page) => page.getByRole('table', { name: 'Calls' }).waitFor() },
  {
    file: 'ai-gateway-playground',
    path: '/playground',
    heading: 'Playground',
    prepare: async (page) => {
      await page.getByLabel('Key', { exact: true }).fill(demoKey);
      await page.getByRole('button', { name: 'Use this key' }).click();
      await page.getByRole('combobox', { name: 'Alias' }).click();
      await page.getByRole('option', { name: 'gpt-4o-mini', exact: true }).click();
      await page.getByRole('textbox', { name: 'Message' }).fill('say: Hello from the playground, streamed through the gateway.');
      await page.getByRole('button', { name: 'Send' }).click();
      await page
        .getByTestId('playground-cost')
        .getByText(/^Cost /)
        .waitFor();
    },
  },
];

const MCP_GATEWAY: Shot[] = [
  { file: 'mcp-gateway-virtual-servers', path: '/virtual-servers', heading: 'Virtual servers' },
  {
    file: 'mcp-gateway-tools',
    path: '/tools?server=everything',
    heading: 'Tools',
    prepare: async (page) => {
      await page.getByLabel('Search tools').fill('echo');
      const echo = page.locator('[data-tool="echo"]');
      await echo.getByRole('button', { name: /echo/ }).click();
      await echo.getByLabel(/^message\s*\*?$/).fill('hello from the README');
      await echo.getByRole('button', { name: 'Call echo' }).click();
      await echo.getByTestId('tool-answer-text').waitFor();
    },
  },
  { file: 'mcp-gateway-upstreams', path: '/upstreams', heading: 'Upstreams' },
  { file: 'mcp-gateway-api-keys', path: '/keys', heading: 'API keys' },
  { file: 'mcp-gateway-tool-calls', path: '/calls', heading: 'Tool calls', prepare: (page) => page.getByRole('figure').first().waitFor() },
  { file: 'mcp-gateway-agents', path: '/agents', heading: 'Agents', prepare: (page) => page.getByRole('table', { name: 'Agents' }).waitFor() },
  { file: 'mcp-gateway-connections', path: '/connections', heading: 'My connections' },
];

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'arbor-screenshots-'));
  log('starting npm start (it builds what changed first)…');
  const suite = await startSuite(dataDir);
  let browser: Browser | undefined;
  try {
    const { key: demoKey } = JSON.parse(readFileSync(path.join(dataDir, 'ai-gateway-demo-key.json'), 'utf8')) as { key: string };
    await someCalls(SUITE_UIS['AI gateway'].url, demoKey);
    browser = await launchSuiteBrowser();
    mkdirSync(out, { recursive: true });
    await shoot(browser, 'admin', SUITE_UIS['control plane'].url, CONTROL_PLANE);
    await shoot(browser, 'alice', SUITE_UIS['AI gateway'].url, AI_GATEWAY(demoKey));
    await shoot(browser, 'alice', SUITE_UIS['MCP gateway'].url, MCP_GATEWAY);
  } finally {
    await browser?.close();
    await suite.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Chat completions with the demo key: answered ones on three aliases, and one the demo's `unavailable` alias fails. */
async function someCalls(gatewayUrl: string, key: string): Promise<void> {
  for (const model of ['gpt-4o-mini', 'gpt-4o', 'claude-sonnet-4-5', 'gpt-4o-mini', 'unavailable']) {
    await fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
    });
  }
}

async function shoot(browser: Browser, username: string, url: string, shots: Shot[]): Promise<void> {
  const context = await browser.newContext({ storageState: await signedInState(browser, username), viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  for (const shot of shots) {
    await page.goto(`${url}${shot.path}`);
    await page.getByRole('heading', { level: 2, name: shot.heading }).waitFor();
    await shot.prepare?.(page);
    await page.waitForLoadState('networkidle');
    // Charts and transitions settle; the pointer leaves what it clicked.
    await page.mouse.move(0, 0);
    await page.waitForTimeout(800);
    await page.screenshot({ path: path.join(out, `${shot.file}.png`) });
    log(`docs/screenshots/${shot.file}.png`);
  }
  await context.close();
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
