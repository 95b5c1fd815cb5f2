import { mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { launchTestBrowser, startUiTestStack, type UiTestStack } from '@arbor/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startDroppingEveryConnection, startFakeProduct, type FakeProduct } from './fake-product';

/** Screenshots of every page the tests visit, for people to look at (not compared). */
const SCREENSHOTS = path.resolve(__dirname, '../../../tmp/test-output/control-plane-web');
const REPOSITORY_TOKEN = 'ghs_browserTestToken0042';

describe('the control plane web UI in Chromium', () => {
  let stack: UiTestStack;
  let aiGateway: FakeProduct;
  let mcpGateway: { url: string; close(): Promise<void> };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Content-Security-Policy refusals and uncaught errors the pages reported. */
  const problems: string[] = [];

  const api = async (username: string, route: string, init: RequestInit = {}) => {
    const response = await fetch(`${stack.url}${route}`, {
      ...init,
      headers: { authorization: `Bearer ${await stack.token(username)}`, 'content-type': 'application/json', ...init.headers },
    });
    return { status: response.status, text: await response.text() };
  };

  const screenshot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

  async function signIn(username: string) {
    await page.goto(stack.url);
    await page.getByLabel('Username or email').fill(username);
    await page.getByLabel('Password').fill(username);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  }

  /** axe-core's serious and critical findings on the current page, each with the elements it names. */
  const seriousAccessibilityViolations = async () =>
    (await new AxeBuilder({ page }).analyze()).violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => `${node.target.join(' ')} (${node.failureSummary?.split('\n')[1]?.trim() ?? ''})`).join('; ')}`);

  /** A form field by its label (a required one's label ends in an asterisk). */
  const field = (label: string) => page.getByLabel(new RegExp(`^${label}\\s*\\*?$`));

  /** A page of the control plane by its link in the navigation. */
  const open = async (label: string) => {
    await page.getByRole('navigation', { name: 'Control plane' }).getByRole('link', { name: label, exact: true }).click();
    // Each page is headed by its name: wait for it, or a form of the page before could be filled.
    await page.getByRole('heading', { level: 2, name: label, exact: true }).waitFor();
  };

  const card = (product: string) => page.locator(`section[data-product="${product}"]`);
  const figure = (product: string, label: string) => card(product).locator(`[data-figure="${label}"]`);
  /** How many lines the text of an element takes on the page. */
  const lineCount = (locator: ReturnType<Page['locator']>) =>
    locator.evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size;
    });

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // The control plane's origin is known only once it runs, so this product allows any origin.
    aiGateway = await startFakeProduct('ai-gateway', 'AI gateway', '*');
    // The MCP gateway is down: its port drops every connection (a port merely free now could be
    // handed to the identity provider or the control plane a moment later).
    mcpGateway = await startDroppingEveryConnection();
    const down = mcpGateway.url;
    // Tokens for 70 s: the UI renews a minute before expiry, so within seconds of signing in.
    stack = await startUiTestStack({ CP_SUITE_AI_GATEWAY_URL: aiGateway.url, CP_SUITE_MCP_GATEWAY_URL: down }, { accessTokenLifespan: 70 });
    // The demo users, as `npm start` has them: alice signed in once, two projects.
    await api('alice', '/api/v1/me');
    for (const slug of ['alpha', 'beta']) await api('admin', '/api/v1/projects', { method: 'POST', body: JSON.stringify({ slug, name: slug.toUpperCase() }) });
    browser = await launchTestBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.on('console', (message) => {
      // A page that failed to render shows React Router's error page, which is no uncaught error.
      if (message.type() === 'error' && /Content Security Policy|React Router caught/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await aiGateway?.close();
    await mcpGateway?.close();
  });

  it('signs the administrator in through the identity provider and shows every product on the dashboard, the down one as down', async () => {
    await signIn('admin');
    await card('control-plane').and(page.locator('[data-state="ok"]')).waitFor();
    await card('ai-gateway').and(page.locator('[data-state="ok"]')).waitFor();
    await card('mcp-gateway').and(page.locator('[data-state="down"]')).waitFor();
    expect(await card('control-plane').innerText()).toMatch(/Projects\s+2/);
    expect(await card('ai-gateway').innerText()).toMatch(/Requests today\s+1234/);
    // Money with the precision it has, not "0 USD": sub-cent amounts with two significant digits.
    expect(await card('ai-gateway').innerText()).toMatch(/Spend today\s+\$0\.0013\s+alpha: \$0\.0013\s+gamma: \$0\.000043/);
    // Each amount on one line, and a list of names at body size rather than as a large figure.
    expect(await lineCount(figure('ai-gateway', 'Spend today').locator('[data-value]'))).toBe(1);
    expect(
      await figure('ai-gateway', 'Top aliases this month')
        .locator('[data-value]')
        .evaluate((element) => getComputedStyle(element).fontWeight),
    ).toBe('400');
    expect(await page.getByTestId('dashboard-scope').innerText()).toBe('Figures for every project you may see.');
    expect(await card('mcp-gateway').innerText()).toMatch(/could not be reached/);
    // The product was asked with the person's own token.
    expect(aiGateway.callers).toContain('admin');
    // The module rail lists the suite, this module marked as the current one.
    const rail = page.getByRole('navigation', { name: 'Suite modules' });
    expect((await rail.getByRole('link').allInnerTexts()).map((text) => text.split('\n')[0])).toEqual(['Control plane', 'AI gateway', 'MCP gateway']);
    expect(await rail.locator('[aria-current="page"]').innerText()).toContain('Control plane');
    await screenshot('dashboard');
    expect(await seriousAccessibilityViolations()).toEqual([]);
  });

  it('renews the access token silently with the refresh token before it expires, and goes on working', async () => {
    const renewal = await page.waitForResponse(
      (response) => response.url().endsWith('/protocol/openid-connect/token') && (response.request().postData() ?? '').includes('grant_type=refresh_token'),
      { timeout: 20_000 },
    );
    expect(renewal.status()).toBe(200);
    await open('My access');
    await page.getByText('Signed in as').waitFor();
    expect(page.url()).toBe(`${stack.url}/me`);
  });

  it('signs in again, back on the same page, when the control plane no longer accepts the token', async () => {
    await open('My access');
    // As after a restart of an identity provider whose keys changed: the stored token is refused.
    await page.evaluate(() => {
      for (const key of Object.keys(sessionStorage).filter((name) => name.startsWith('oidc.user:'))) {
        sessionStorage.setItem(key, JSON.stringify({ ...JSON.parse(sessionStorage.getItem(key) ?? '{}'), access_token: 'not-a-token' }));
      }
    });
    const signInAgain = page.waitForRequest((request) => request.url().includes('/protocol/openid-connect/auth'));
    await page.reload();
    await signInAgain;
    // The issuer's session is still open, so no form: straight back to the page, signed in.
    await page.waitForURL(`${stack.url}/me`);
    await page.getByText('Signed in as').waitFor();
    expect(await page.getByTestId('signed-in-as').innerText()).toBe('Ada Administrator');
  });

  it('serves every page of the app from index.html with a strict policy, and keeps the API and health answers', async () => {
    const deep = await fetch(`${stack.url}/projects/anything`, { headers: { accept: 'text/html' } });
    expect(deep.status).toBe(200);
    expect(deep.headers.get('cache-control')).toBe('no-store');
    expect(deep.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    const html = await deep.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const cached = await fetch(`${stack.url}${asset}`);
    expect(cached.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${stack.url}/api/v1/nothing-here`)).status).toBe(404);
    expect(await (await fetch(`${stack.url}/healthz`)).text()).toBe('ok');
    expect(await (await fetch(`${stack.url}/api/v1/ui/config`)).json()).toMatchObject({ issuer: stack.issuer, client_id: 'arbor-control-plane' });
  });

  it('creates a project, adds a repository and sets its token, which no answer of the API ever shows', async () => {
    await open('Projects');
    await field('Slug').fill('gamma');
    await field('Name').fill('Gamma');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('link', { name: 'Gamma' }).click();
    await page.getByRole('heading', { name: 'Project Gamma' }).waitFor();

    // A pasted URL fills host, owner and name, whichever way it was copied.
    await field('Repository URL').fill('git@gitlab.com:acme/gamma-service.git');
    expect([await field('Source host').inputValue(), await field('Owner').inputValue(), await field('Repository name').inputValue()]).toEqual([
      'gitlab.com',
      'acme',
      'gamma-service',
    ]);
    await field('Repository URL').fill('https://github.com/arbor-demo/gamma-api.git');
    expect([await field('Source host').inputValue(), await field('Owner').inputValue(), await field('Repository name').inputValue()]).toEqual([
      'github.com',
      'arbor-demo',
      'gamma-api',
    ]);
    await field('Branch').fill('develop');
    await field('Installation id').fill('4711');
    await page.getByRole('button', { name: 'Add repository' }).click();
    await page.getByRole('cell', { name: 'github.com/arbor-demo/gamma-api', exact: true }).waitFor();

    await field('Token').fill(REPOSITORY_TOKEN);
    await page.getByRole('button', { name: 'Set token' }).click();
    await page.getByText(/A token is set \(since/).waitFor();
    await screenshot('project');

    const projects = JSON.parse((await api('admin', '/api/v1/projects')).text) as { projects: { id: string; slug: string }[] };
    const gamma = projects.projects.find((project) => project.slug === 'gamma');
    expect(gamma).toBeDefined();
    const repositories = await api('admin', '/api/v1/repositories');
    expect(repositories.text).toContain('"branch":"develop"');
    for (const answer of [repositories, await api('admin', `/api/v1/projects/${gamma?.id}/repository-secret`), await api('admin', `/api/v1/projects/${gamma?.id}/repositories`)]) {
      expect(answer.text).not.toContain(REPOSITORY_TOKEN);
    }
    await page.reload();
    await page.getByText(/A token is set/).waitFor();
    expect(await page.content()).not.toContain(REPOSITORY_TOKEN);
  });

  it("shows the API's field error beside the field", async () => {
    await open('Projects');
    await field('Slug').fill('Not A Slug');
    await field('Name').fill('Bad');
    await page.getByRole('button', { name: 'Create project' }).click();
    const slug = field('Slug');
    await page.locator('[aria-invalid="true"]').first().waitFor();
    expect(await slug.getAttribute('aria-invalid')).toBe('true');
  });

  it('grants alice a role in the matrix, and her effective permissions change', async () => {
    await open('Permissions');
    await page.getByRole('combobox', { name: 'Person' }).click();
    await page.getByRole('option', { name: /alice/i }).click();
    await page.getByRole('table', { name: 'Permission grants' }).waitFor();
    await page.getByLabel('Workspace: ai-gateway', { exact: true }).check();
    await page.getByLabel('gamma: ai-gateway.operator', { exact: true }).check();
    await page.getByRole('button', { name: 'Save grants' }).click();
    // The save is confirmed in a notification naming the person.
    await page.getByRole('alert').filter({ hasText: 'Grants saved' }).filter({ hasText: 'The permissions of Alice Anderson are saved.' }).waitFor();
    await page.getByTestId('effective-gamma').waitFor();
    expect(await page.getByTestId('effective-gamma').innerText()).toBe('ai-gateway.operator');
    expect(await page.getByTestId('effective-workspace').innerText()).toBe('ai-gateway');
    await screenshot('permissions');
    const effective = JSON.parse((await api('alice', '/api/v1/me')).text) as { permissions: unknown };
    expect(effective.permissions).toEqual({ workspace: ['ai-gateway'], projects: { gamma: ['ai-gateway.operator'] } });
  });

  it('pre-creates a user and disables them only after a confirmation', async () => {
    await open('Users');
    await field('Email').fill('erin@arbor.local');
    await page.getByRole('button', { name: 'Pre-create user' }).click();
    const row = page.getByRole('row').filter({ hasText: 'erin@arbor.local' });
    await row.waitFor();
    await row.getByRole('button', { name: /^Disable/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await row.innerText()).toMatch(/active/i);
    await row.getByRole('button', { name: /^Disable/ }).click();
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await row.getByText('disabled').waitFor();
    // No control lets the administrator lock themselves out.
    const self = page.getByRole('row').filter({ hasText: 'admin@arbor.local' });
    expect(await self.getByRole('button', { name: /^Disable/ }).count()).toBe(0);
    expect(await self.getByRole('switch').isDisabled()).toBe(true);
    // Ada is an administrator through the identity provider's realm role, which the page says, not "off".
    const fromRealmRole = self.getByRole('switch', { name: 'Ada Administrator is an administrator (from identity provider role)' });
    expect([await fromRealmRole.isChecked(), await fromRealmRole.isDisabled()]).toEqual([true, true]);
    expect(await self.innerText()).toContain('change it in the identity provider');
    const alice = page.getByRole('row').filter({ hasText: 'alice@arbor.local' }).getByRole('switch', { name: 'Alice Anderson is an administrator' });
    expect([await alice.isChecked(), await alice.isDisabled()]).toEqual([false, false]);
    await screenshot('users');
    expect(await seriousAccessibilityViolations()).toEqual([]);
  });

  it('changes the workspace time zone and locale, and dates and money follow them', async () => {
    await open('Workspace');
    await page.getByRole('combobox', { name: 'Time zone' }).fill('Asia/Tokyo');
    await page.getByRole('option', { name: /^Asia\/Tokyo/ }).click();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Every product UI shows times in Asia/Tokyo').waitFor();
    await screenshot('workspace');
    await open('Projects');
    await page
      .getByRole('cell', { name: /GMT\+9/ })
      .first()
      .waitFor();
    await open('Audit log');
    await page.getByRole('cell', { name: 'project.created' }).first().waitFor();
    expect(await page.getByRole('table', { name: 'Audit entries' }).innerText()).toContain('repository_secret');
    // Whose permissions were replaced, by name.
    expect(await page.getByRole('row').filter({ hasText: 'permissions.replaced' }).first().innerText()).toContain('Alice Anderson');
    expect(await page.content()).not.toContain(REPOSITORY_TOKEN);
    await screenshot('audit');
    await open('Sync deliveries');
    await page.getByRole('heading', { name: 'Sync deliveries' }).waitFor();
    await screenshot('sync');

    // The workspace's locale writes money on every page; the form shows what a tag does before saving.
    const saveLocale = async (locale: string) => {
      await open('Workspace');
      await field('Locale').fill(locale);
      const saved = page.waitForResponse((response) => response.url().endsWith('/api/v1/workspace/settings') && response.request().method() === 'PUT' && response.ok());
      await page.getByRole('button', { name: 'Save settings' }).click();
      await saved;
    };
    await saveLocale('de-DE');
    await page.getByText(/1\.234,50\s\$ and 0,0013\s\$/).waitFor();
    await open('Dashboard');
    await figure('ai-gateway', 'Spend today')
      .locator('[data-value]')
      .filter({ hasText: /^0,0013\s\$$/ })
      .waitFor();
    await saveLocale('');
    await page.getByText(/\$1,234\.50 and \$0\.0013/).waitFor();
  });

  it('keeps the theme and the default project across a reload', async () => {
    await open('Dashboard');
    await page.getByText('Dark', { exact: true }).click();
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'))).toBe('dark');
    const saved = page.waitForResponse((response) => response.url().endsWith('/api/v1/me/default-project') && response.ok());
    await page.getByRole('combobox', { name: 'Project' }).click();
    await page.getByRole('option', { name: 'Gamma (gamma)' }).click();
    await saved;
    // The cards show project gamma's figures only; a figure without a per-project share says so.
    const gammaFigures = async () => {
      await page
        .getByTestId('dashboard-scope')
        .and(page.getByText('Figures for project Gamma (gamma)', { exact: false }))
        .waitFor();
      const text = await card('ai-gateway').innerText();
      expect(text).toMatch(/Requests today\s+34\s+Spend today\s+\$0\.000043/);
      expect(text).not.toContain('alpha');
      expect(text).toMatch(/Top aliases this month\s+\(all projects\)/);
    };
    await gammaFigures();
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.waitForFunction(() => document.documentElement.getAttribute('data-mantine-color-scheme') === 'dark');
    await page.getByRole('combobox', { name: 'Project' }).and(page.locator('[value="Gamma (gamma)"]')).waitFor();
    await gammaFigures();
    const me = JSON.parse((await api('admin', '/api/v1/me')).text) as { theme: string; default_project: { slug: string } };
    expect(me).toMatchObject({ theme: 'dark', default_project: { slug: 'gamma' } });
    await screenshot('dashboard-dark');
    expect(await seriousAccessibilityViolations()).toEqual([]);
  });

  it('signs out, and alice sees only what she may do', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page
      .getByLabel('Username or email')
      .waitFor()
      .catch(async (error: Error) => {
        await screenshot('sign-out-failed');
        throw new Error(`${error.message}\nat ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`);
      });
    await signIn('alice');
    const pages = page.getByRole('navigation', { name: 'Control plane' });
    expect(await pages.getByRole('link').allInnerTexts()).toEqual(['Dashboard', 'My access']);
    await card('control-plane').and(page.locator('[data-state="ok"]')).waitFor();
    expect(await card('control-plane').innerText()).toMatch(/Your projects\s+1/);
    await open('My access');
    await page.getByRole('cell', { name: 'Gamma (gamma)' }).waitFor();
    expect(await page.getByRole('table', { name: 'My projects' }).innerText()).toContain('ai-gateway ai-gateway.operator');
    await screenshot('my-access');
    // An administration page reached by its address offers nothing.
    await page.goto(`${stack.url}/users`);
    await page.getByText('Administrators only').waitFor();
  });

  it('reported no Content-Security-Policy refusal and no uncaught error on any page', () => {
    expect(problems).toEqual([]);
  });
});
