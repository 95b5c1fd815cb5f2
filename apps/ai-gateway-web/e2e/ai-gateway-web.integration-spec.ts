// The AI gateway's own UI as a person meets it: signed in once at the control plane, the rail's
// "AI gateway" link lands them signed in on the gateway's Keys page (the BUILT ai-gateway serving
// the built UI), where a key is made and used at once with the official OpenAI SDK against the
// gateway and tools/fake-providers, and its calls seen in the usage charts. One browser, one
// stack for the whole file.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import OpenAI, { AuthenticationError } from 'openai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
  BuiltService,
  createTestDatabase,
  FakeProvidersProcess,
  freePort,
  launchTestBrowser,
  seriousAccessibilityViolationsInBothThemes,
  signInAtDevIdp,
  startBuiltService,
  startFakeProviders,
  startUiTestStack,
  TestDatabase,
  type UiTestStack,
} from '@arbor/testing';

const SCREENSHOTS = path.resolve(__dirname, '../../../tmp/test-output/ai-gateway-web');

describe("the AI gateway's web UI in Chromium, reached from the control plane", () => {
  let stack: UiTestStack;
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: BuiltService;
  let configFolder: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** The secret of the key the tests make, as its last rotation showed it. */
  let secret = '';
  /** Content-Security-Policy refusals and uncaught errors the pages reported. */
  const problems: string[] = [];

  const watch = (watched: Page) => {
    watched.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|React Router caught/i.test(message.text())) problems.push(message.text());
    });
    watched.on('pageerror', (error) => problems.push(error.message));
  };

  const screenshot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

  const seriousAccessibilityViolations = async (on: Page) =>
    (await new AxeBuilder({ page: on }).analyze()).violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join('; ')}`);

  const inBothThemesClean = async () => {
    for (const theme of ['Dark', 'Light'] as const) {
      await page.getByRole('radiogroup', { name: 'Theme' }).getByText(theme, { exact: true }).click();
      await page.locator(`html[data-mantine-color-scheme="${theme.toLowerCase()}"]`).waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    }
  };

  /** A form field by its label (a required one's label ends in an asterisk). */
  const field = (within: Locator, label: string) => within.getByLabel(new RegExp(`^${label}\\s*\\*?$`));

  /** A new browser session signed in at the identity provider's form, straight at the gateway's UI. */
  async function signedInAtGateway(username: string): Promise<Page> {
    const other = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    watch(other);
    await other.goto(gateway.url);
    await signInAtDevIdp(other, username);
    await other.getByRole('heading', { level: 2, name: 'Keys' }).waitFor();
    return other;
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const gatewayPort = await freePort();
    const gatewayOrigin = `http://127.0.0.1:${gatewayPort}`;
    stack = await startUiTestStack({ CP_SUITE_AI_GATEWAY_URL: gatewayOrigin }, { uiClients: { 'arbor-ai-gateway': gatewayOrigin } });
    await stack.asAdmin('POST', '/api/v1/projects', { slug: 'alpha', name: 'Alpha' });
    await stack.asAdmin('POST', '/api/v1/projects', { slug: 'beta', name: 'Beta' });
    // alice runs alpha's keys, bob may read them, carol has no role in the gateway (until she is
    // made a workspace viewer); admin makes beta's key through the gateway's API.
    await stack.grant('alice', { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
    await stack.grant('bob', { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.viewer'] } });
    await stack.grant('carol', { workspace: [], projects: {} });
    await stack.grant('admin', { workspace: ['ai-gateway'], projects: { beta: ['ai-gateway.operator'] } });

    fake = await startFakeProviders();
    configFolder = mkdtempSync(path.join(tmpdir(), 'arbor-ui-gateway-'));
    const configFile = path.join(configFolder, 'config.yaml');
    writeFileSync(
      configFile,
      `model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
  - model_name: broken
    litellm_params: { model: openai/fail-503, api_base: ${fake.url}/v1, api_key: sk-upstream }
  - model_name: flaky
    litellm_params: { model: openai/fail-503, api_base: ${fake.url}/v1, api_key: sk-upstream }
  - model_name: held
    litellm_params: { model: openai/hold-playground, api_base: ${fake.url}/v1, api_key: sk-upstream }
router_settings: { num_retries: 0, fallbacks: [{ flaky: [fast] }] }
`,
    );
    database = await createTestDatabase('arbor_ui_aigw');
    gateway = await startBuiltService(
      'ai-gateway',
      'AIGW_LISTEN_ADDR',
      {
        AIGW_DATABASE_URL: database.url,
        AIGW_CONFIG: configFile,
        AIGW_LOG: 'off',
        AIGW_OIDC_ISSUER_URL: stack.issuer,
        AIGW_CONTROL_PLANE_URL: stack.url,
        AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m',
        AIGW_M2M_CLIENT_SECRET: 'dev-ai-gateway-m2m-secret',
      },
      gatewayPort,
    );
    browser = await launchTestBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    watch(page);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.kill('SIGTERM');
    await database?.drop().catch(() => undefined);
    await fake?.stop();
    await stack?.stop();
    if (configFolder) rmSync(configFolder, { recursive: true, force: true });
  });

  it('lands alice, signed in at the control plane, signed in on the gateway\'s Keys page from the rail\'s "AI gateway" link', async () => {
    await page.goto(stack.url);
    await page.getByLabel('Username or email').fill('alice');
    await page.getByLabel('Password').fill('alice');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('navigation', { name: 'Suite modules' }).getByRole('link', { name: 'AI gateway' }).click();
    // No second login form: the issuer's session answers the gateway UI's sign-in at once.
    await page.getByRole('heading', { level: 2, name: 'Keys' }).waitFor();
    expect(page.url()).toBe(`${gateway.url}/keys`);
    expect(await page.getByTestId('signed-in-as').innerText()).toBe('Alice Anderson');
    const rail = page.getByRole('navigation', { name: 'Suite modules' });
    expect(await rail.locator('[aria-current="page"]').innerText()).toContain('AI gateway');
    // Nothing failed: the empty list says how to begin.
    expect(await page.getByRole('alert').innerText()).toMatch(/No keys yet\s+Make the first one above/);
  });

  it('makes a key whose secret, shown once, works at once with the OpenAI SDK', async () => {
    const form = page.getByRole('form', { name: 'New key' });
    await field(form, 'Name').fill('search team');
    await field(form, 'Aliases').fill('fast, broken, flaky');
    await field(form, 'Requests per minute').fill('60');
    await form.getByRole('button', { name: 'Make key' }).click();
    secret = (await page.getByTestId('new-key-secret').innerText()).trim();
    expect(secret).toMatch(/^sk-arbor-/);
    await screenshot('new-key');
    await page.getByRole('button', { name: 'Done' }).click();

    const openai = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello from the UI' }] });
    expect(completion.choices[0]?.message.content).toBe('fake answer from gpt-4o-mini');
    // A call its provider fails: an error in the usage figures.
    await expect(openai.chat.completions.create({ model: 'broken', messages: [{ role: 'user', content: 'failing' }] })).rejects.toMatchObject({ status: 503 });

    const row = page.getByRole('row', { name: /search team/ });
    expect(await row.innerText()).toMatch(/alpha[\s\S]*fast, broken[\s\S]*60 rpm[\s\S]*active/i);
    // The list never shows the secret again.
    expect(await page.content()).not.toContain(secret);
    await screenshot('keys');
  });

  it('changes the limits and blocks the key: the SDK is refused until it is unblocked', async () => {
    await page.getByRole('button', { name: 'Edit search team' }).click();
    const settings = page.getByRole('form', { name: 'Settings of search team' });
    await field(settings, 'Budget \\(USD\\)').fill('5');
    await field(settings, 'Tokens per minute').fill('1000');
    await settings.getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row', { name: /search team/ });
    await row.getByText('1000 tpm', { exact: false }).waitFor();
    expect(await row.innerText()).toMatch(/\$0\.0\d* \/ \$5\.00/);

    await page.getByRole('button', { name: 'Rotate search team' }).click();
    await page.getByRole('dialog', { name: 'Rotate search team?' }).getByRole('button', { name: 'Rotate' }).click();
    const rotated = (await page.getByTestId('new-key-secret').innerText()).trim();
    expect(rotated).not.toBe(secret);
    secret = rotated;
    await page.getByRole('button', { name: 'Done' }).click();
    const openai = new OpenAI({ apiKey: rotated, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

    await page.getByRole('button', { name: 'Block search team' }).click();
    await row.getByText('blocked').waitFor();
    await expect(openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'blocked?' }] })).rejects.toBeInstanceOf(AuthenticationError);
    await page.getByRole('button', { name: 'Unblock search team' }).click();
    await row.getByText('active').waitFor();
    expect((await openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'unblocked' }] })).choices.length).toBe(1);
  });

  it('shows the calls just made in the usage charts of project alpha, and gives them as CSV', async () => {
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { level: 2, name: 'Usage' }).waitFor();
    // Three calls went to a provider (the one while blocked was refused before): two answered with
    // 7 prompt and 5 completion tokens each, one failed.
    await page.getByTestId('usage-totals').locator('[data-figure="Errors"]').getByText('1', { exact: true }).waitFor();
    expect(await page.getByTestId('usage-totals').locator('[data-figure="Calls"]').innerText()).toMatch(/Calls\s+3/);
    expect(await page.getByTestId('usage-totals').locator('[data-figure="Tokens"]').innerText()).toMatch(/14 in · 10 out/);
    expect(await page.getByRole('figure', { name: 'Spend by alias' }).textContent()).toContain('fast');
    expect(await page.getByRole('figure', { name: 'Spend by provider' }).textContent()).toContain('openai');
    // A key by its name, as the Keys page lists it.
    expect(await page.getByRole('figure', { name: 'Spend by key' }).textContent()).toContain('search team');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = readFileSync(await download.path(), 'utf8').split('\r\n');
    expect(csv[0]).toBe('day,requests,errors,prompt_tokens,completion_tokens,cost_usd,cache_hit_requests,estimated_requests,estimated_cost_usd');
    expect(csv).toContainEqual(expect.stringMatching(new RegExp(`^${new Date().toISOString().slice(0, 10)},3,1,14,10,0\\.\\d+,0,0,0$`)));
    for (const theme of ['Dark', 'Light'] as const) {
      await page.getByRole('radiogroup', { name: 'Theme' }).getByText(theme, { exact: true }).click();
      await page.locator(`html[data-mantine-color-scheme="${theme.toLowerCase()}"]`).waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    }
    await screenshot('usage');
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { level: 2, name: 'Keys' }).waitFor();
  });

  it("lists a call just made with the OpenAI SDK in the project's call log: key, alias, deployment, status, tokens, cost and latency, not its content (off by default)", async () => {
    const openai = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    // A call its first deployment fails and the fallback answers, then a plain one.
    await openai.chat.completions.create({ model: 'flaky', messages: [{ role: 'user', content: 'falls back' }] });
    await openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'a secret prompt for the log' }] });
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Call log' }).click();
    await page.getByRole('heading', { level: 2, name: 'Call log' }).waitFor();
    await page.reload();
    const rows = page.getByRole('table', { name: 'Calls' }).locator('tbody tr');
    // The five calls that reached a provider, newest first: these two, the one after the unblock, the failed one, the first.
    for (let tries = 0; (await rows.count()) !== 5 && tries < 20; tries++) {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(250);
    }
    expect(await rows.count()).toBe(5);
    expect(await rows.first().innerText()).toMatch(/search team[\s\S]*fast[\s\S]*openai[\s\S]*200[\s\S]*7 \/ 5[\s\S]*\$0\.\d+[\s\S]*\d+ ms[\s\S]*0 \/ 0/);
    expect(await rows.nth(1).innerText()).toMatch(/search team[\s\S]*200[\s\S]*0 \/ 1/);
    expect((await rows.allInnerTexts()).filter((text) => /broken[\s\S]*503/.test(text))).toHaveLength(1);
    expect(await page.content()).not.toContain('a secret prompt for the log');
    // This stack's config leaves content off (LiteLLM's default), and the page says where to turn it on.
    await page.getByText('Message content is not kept (off in the config: general_settings.store_prompts_in_spend_logs)', { exact: false }).waitFor();
    expect(await page.getByRole('button', { name: 'Show content' }).count()).toBe(0);
    await inBothThemesClean();
    await screenshot('call-log');
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { level: 2, name: 'Keys' }).waitFor();
  });

  it("shows a call's kept prompt and answer behind Show content when the gateway keeps content", async () => {
    // One gateway per stack (its UI client's origin is registered at the identity provider), started
    // with content off: the answers of a gateway that keeps content (call-content.integration-spec.ts
    // checks those against the gateway itself) are given to this page in place of its own.
    await page.route('**/api/v1/call-log/settings', (route) => route.fulfill({ json: { content_kept: true, content_off_by: null, max_field_chars: 16384 } }));
    await page.route('**/spend/logs?*', async (route) => {
      const calls = (await (await route.fetch()).json()) as Record<string, unknown>[];
      const [newest, ...rest] = calls;
      const content = {
        messages: { messages: [{ role: 'user', content: 'a prompt kept by the config' }] },
        response: { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'an answer kept by the config' } }] },
        streamed: false,
        truncated: false,
      };
      await route.fulfill({ json: newest ? [{ ...newest, content }, ...rest] : [] });
    });
    try {
      await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Call log' }).click();
      await page.getByRole('heading', { level: 2, name: 'Call log' }).waitFor();
      // The page read the settings once already (they change only with the config): a new visit reads them again.
      await page.reload();
      await page.getByText('Message content is kept (on in the config: general_settings.store_prompts_in_spend_logs)', { exact: false }).waitFor();
      const show = page.getByRole('button', { name: 'Show content' });
      await show.waitFor();
      expect(await show.count()).toBe(1);
      expect(await show.getAttribute('aria-expanded')).toBe('false');
      expect(await page.content()).not.toContain('an answer kept by the config');
      await show.click();
      const hide = page.getByRole('button', { name: 'Hide content' });
      expect(await hide.getAttribute('aria-expanded')).toBe('true');
      const shown = page.locator(`#${await hide.getAttribute('aria-controls')}`);
      expect(await shown.innerText()).toMatch(/Prompt[\s\S]*a prompt kept by the config[\s\S]*Answer[\s\S]*an answer kept by the config/);
      await inBothThemesClean();
      await screenshot('call-log-content');
      await hide.click();
      await page.getByRole('button', { name: 'Show content' }).waitFor();
      expect(await page.content()).not.toContain('an answer kept by the config');
    } finally {
      await page.unroute('**/api/v1/call-log/settings');
      await page.unroute('**/spend/logs?*');
    }
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { level: 2, name: 'Keys' }).waitFor();
  });

  it('lists the aliases keys can call with their deployments, list price and health, also after a reload of the deep link', async () => {
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Models' }).click();
    await page.getByRole('heading', { level: 2, name: 'Models' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Models' }).waitFor();
    const row = page.locator('tr[data-alias="fast"]');
    expect(await row.innerText()).toMatch(/fast[\s\S]*openai\/gpt-4o-mini[\s\S]*\$0\.\d+ \/ \$0\.\d+[\s\S]*∞ rpm · ∞ tpm[\s\S]*in rotation/i);
    expect(await row.getByTestId('last-error').count()).toBe(0);
    // The only deployment of `broken` stays in the rotation, but its last failure is there to read.
    expect(await page.locator('tr[data-alias="broken"]').innerText()).toMatch(/in rotation\s+Last error .+: 503 server_error — fake: .+/i);
    await inBothThemesClean();
    await screenshot('models');
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { level: 2, name: 'Keys' }).waitFor();
  });

  it('has no serious accessibility findings in either theme, and the theme chosen here is the one the control plane shows', async () => {
    for (const theme of ['Light', 'Dark'] as const) {
      await page.getByRole('radiogroup', { name: 'Theme' }).getByText(theme, { exact: true }).click();
      await page.locator(`html[data-mantine-color-scheme="${theme.toLowerCase()}"]`).waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    }
    await screenshot('keys-dark');
    // Saved through the control plane's shell endpoint: its own UI opens dark.
    await page.goto(stack.url);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.locator('html[data-mantine-color-scheme="dark"]').waitFor();
    await page.goto(`${gateway.url}/keys`);
    await page.getByRole('heading', { level: 2, name: 'Keys' }).waitFor();
  });

  it('shows bob, a viewer, the keys without any action; carol, without a role, the role that would let her in', async () => {
    const bob = await signedInAtGateway('bob');
    const row = bob.getByRole('row', { name: /search team/ });
    expect(await row.innerText()).toContain('read only');
    expect(await bob.getByRole('form', { name: 'New key' }).count()).toBe(0);
    expect(await bob.getByRole('button', { name: /^(Edit|Rotate|Block|Delete) / }).count()).toBe(0);
    await bob.context().close();

    const carol = await signedInAtGateway('carol');
    const empty = carol.getByText('No AI gateway role on any project');
    await empty.waitFor();
    expect(await carol.getByRole('main').innerText()).toMatch(/ai-gateway\.viewer[\s\S]*ai-gateway\.operator/);
    expect(await seriousAccessibilityViolationsInBothThemes(carol)).toEqual([]);
    await carol.context().close();
  });

  it('shows carol, made a workspace viewer without any project grant, the keys of every project read only', async () => {
    const keysApi = async (method: string, username: string, body?: unknown) =>
      fetch(`${gateway.url}/api/v1/keys`, {
        method,
        headers: { authorization: `Bearer ${await stack.token(username)}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await keysApi('POST', 'admin', { project: 'beta', key_alias: 'beta team' })).status).toBe(201);
    // Set before the gateway first asked about carol: it keeps a person's permissions for a minute.
    await stack.grant('carol', { workspace: ['ai-gateway', 'ai-gateway.viewer'], projects: {} });

    const carol = await signedInAtGateway('carol');
    await carol.getByRole('row', { name: /beta team/ }).waitFor();
    for (const [name, project] of [
      [/search team/, 'alpha'],
      [/beta team/, 'beta'],
    ] as const) {
      expect(await carol.getByRole('row', { name }).innerText()).toMatch(new RegExp(`${project}[\\s\\S]*read only`));
    }
    expect(await carol.getByText('You may read the keys of alpha, beta').count()).toBe(1);
    expect(await carol.getByText('No AI gateway role on any project').count()).toBe(0);
    expect(await carol.getByRole('form', { name: 'New key' }).count()).toBe(0);
    expect(await carol.getByRole('button', { name: /^(Edit|Rotate|Block|Delete) / }).count()).toBe(0);
    // The other pages offer both projects too.
    await carol.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Usage' }).click();
    await carol.getByRole('main').getByRole('combobox', { name: 'Project' }).click();
    expect(await carol.getByRole('option').allInnerTexts()).toEqual(['alpha', 'beta']);
    // The gateway agrees: reading is all a viewer may do.
    expect((await keysApi('POST', 'carol', { project: 'beta' })).status).toBe(403);
    await carol.context().close();
  });

  it('chats in the playground with a pasted key: only its aliases to pick, the answer, the x-arbor-* headers and the cost', async () => {
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Playground' }).click();
    await page.getByRole('heading', { level: 2, name: 'Playground' }).waitFor();
    const paste = page.getByRole('form', { name: 'Paste a key' });
    await field(paste, 'Key').fill(secret);
    await paste.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText(`Calling with ${secret.slice(0, 9)}…${secret.slice(-4)}`).waitFor();
    // The key may call fast, broken and flaky (GET /v1/models with it), not `held`.
    await page.getByRole('combobox', { name: 'Alias' }).click();
    expect(await page.getByRole('option').allInnerTexts()).toEqual(['broken', 'fast', 'flaky']);
    await page.getByRole('option', { name: 'fast', exact: true }).click();
    await field(page.getByRole('form', { name: 'Message' }), 'Message').fill('say: hello from the playground');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.getByRole('log', { name: 'Conversation' }).locator('[data-role="assistant"]:not([data-streaming])');
    await answer.waitFor();
    expect(await answer.innerText()).toMatch(/Assistant\s+hello from the playground/);
    await page
      .getByTestId('playground-cost')
      .getByText(/^Cost \$0\.\d+ · \d+ tokens in · \d+ out$/)
      .waitFor();
    const headers = page.getByRole('table', { name: 'Gateway headers' });
    expect(await headers.getByRole('row', { name: /x-arbor-model-group/ }).innerText()).toMatch(/fast/);
    expect(await headers.getByRole('row', { name: /x-arbor-call-id/ }).count()).toBe(1);
    // The secret is kept in this page's memory only, never in the browser's storage.
    const stored = await page.evaluate(() => JSON.stringify({ ...window.localStorage }) + JSON.stringify({ ...window.sessionStorage }));
    expect(stored).not.toContain(secret);
    expect(problems).toEqual([]);
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { level: 2, name: 'Keys' }).waitFor();
  });

  it('deletes the key: gone from the list, refused by the gateway', async () => {
    await page.getByRole('button', { name: 'Delete search team' }).click();
    await page.getByRole('dialog', { name: 'Delete search team?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No keys yet').waitFor();
    const openai = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await expect(openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'deleted?' }] })).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('makes a one-hour key in the playground and streams an answer: the headers first, then the text and its cost', async () => {
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Playground' }).click();
    await page.getByRole('heading', { level: 2, name: 'Playground' }).waitFor();
    await page.reload();
    await page.getByRole('form', { name: 'Make a playground key' }).getByRole('button', { name: 'Make a one-hour key' }).click();
    await page.getByText(/^Calling with sk-arbor-.+ of alpha, expires /).waitFor();
    await page.getByRole('combobox', { name: 'Alias' }).click();
    await page.getByRole('option', { name: 'held', exact: true }).click();
    await field(page.getByRole('form', { name: 'Message' }), 'Message').fill('stream to me');
    await page.getByRole('button', { name: 'Send' }).click();
    // The fake holds the stream after its first chunk: the headers are in, the answer is not yet.
    const headers = page.getByRole('table', { name: 'Gateway headers' });
    expect(await headers.getByRole('row', { name: /x-arbor-model-group/ }).innerText()).toMatch(/held/);
    expect(await page.getByRole('log', { name: 'Conversation' }).locator('[data-streaming]').count()).toBe(1);
    expect(await page.getByTestId('playground-cost').innerText()).toBe('Cost: when the answer has ended.');
    await screenshot('playground-streaming');
    await fetch(`${fake.url}/_fake/release/playground`, { method: 'POST' });
    const answer = page.getByRole('log', { name: 'Conversation' }).locator('[data-role="assistant"]:not([data-streaming])');
    await answer.waitFor();
    expect(await answer.innerText()).toMatch(/fake answer from hold-playground/);
    await page
      .getByTestId('playground-cost')
      .getByText(/^Cost \$0\.\d+ · \d+ tokens in · \d+ out$/)
      .waitFor();
    await inBothThemesClean();
    await screenshot('playground');
    // The key it made is an ordinary key of the project, which expires by itself.
    await page.getByRole('navigation', { name: 'AI gateway' }).getByRole('link', { name: 'Keys' }).click();
    expect(await page.getByRole('row', { name: /playground/ }).innerText()).toMatch(/alpha[\s\S]*every alias/);
  });

  it('leaves every API path to the API: JSON errors for clients, the app only for a browser asking for a page', async () => {
    const root = await fetch(gateway.url, { headers: { accept: 'application/json' } });
    expect(root.status).toBe(401);
    expect(((await root.json()) as { error: { type?: string } }).error).toBeDefined();
    const models = await fetch(`${gateway.url}/v1/models`, { headers: { accept: 'text/html' } });
    expect(models.status).toBe(401);
    expect(models.headers.get('content-type')).toMatch(/^application\/json/);
    const keys = await fetch(`${gateway.url}/api/v1/keys`, { headers: { accept: 'text/html' } });
    expect(((await keys.json()) as { error: { code: string } }).error.code).toBe('missing_credentials');
    const deepLink = await fetch(`${gateway.url}/keys`, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(deepLink.status).toBe(200);
    expect(deepLink.headers.get('content-type')).toMatch(/^text\/html/);
    expect(deepLink.headers.get('cache-control')).toBe('no-store');
    expect(deepLink.headers.get('content-security-policy')).toContain(`connect-src 'self' ${new URL(stack.issuer).origin} ${stack.url}`);
    expect(problems).toEqual([]);
  });
});
