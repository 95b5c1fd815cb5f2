// Another team's product UI joining the suite with the shell library alone, as libs/contract's
// README ("Add a UI to your product") tells: the fixture UI (e2e/fixture-product, built with
// productUiViteConfig by the build-fixture-product-ui target) served by ProductWebUiModule, a
// public client of its own in the test's realm, and CP_SUITE_FIXTURE_PRODUCT_URL for the rail.
import { freePort, launchTestBrowser, signInAtDevIdp, startUiTestStack, type UiTestStack } from '@arbor/testing';
import type { Browser, Page } from 'playwright-core';
import { startFixtureProduct } from './fake-product';

describe('a product UI built on the shell, reached from the control plane', () => {
  let stack: UiTestStack;
  let product: { url: string; close(): Promise<void> };
  let browser: Browser;
  /** Content-Security-Policy refusals and uncaught errors the pages reported. */
  const problems: string[] = [];

  const newPage = async (): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|React Router caught/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    return page;
  };

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    stack = await startUiTestStack(
      { CP_SUITE_FIXTURE_PRODUCT_URL: origin },
      { testUiClients: { 'arbor-fixture-product': { origin, audiences: ['control-plane', 'fixture-product'] } } },
    );
    await stack.asAdmin('POST', '/api/v1/projects', { slug: 'alpha', name: 'Alpha' });
    await stack.grant('alice', { workspace: ['fixture-product'], projects: { alpha: ['fixture-product.viewer'] } });
    await stack.grant('carol', { workspace: [], projects: {} });
    product = await startFixtureProduct({ port, issuer: stack.issuer, clientId: 'arbor-fixture-product', controlPlaneUrl: stack.url });
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await product?.close();
    await stack?.stop();
  });

  it("lands alice, signed in at the control plane, signed in on the product's UI from the rail, with the project and theme she chose there", async () => {
    const page = await newPage();
    await page.goto(stack.url);
    await signInAtDevIdp(page, 'alice');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/api/v1/me/default-project') && response.ok()),
      page
        .getByRole('banner')
        .getByRole('combobox', { name: 'Project' })
        .click()
        .then(() => page.getByRole('option', { name: 'Alpha (alpha)' }).click()),
    ]);
    await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/api/v1/me/theme') && response.ok()),
      page.getByRole('radiogroup', { name: 'Theme' }).getByText('Dark', { exact: true }).click(),
    ]);

    // A product without a title in the shell is named in the rail by its key.
    await page.getByRole('navigation', { name: 'Suite modules' }).getByRole('link', { name: 'fixture-product' }).click();
    // No second login form: the issuer's session answers the product UI's sign-in at once.
    await page.getByRole('heading', { level: 2, name: 'Hello from Fixture product, signed in as Alice Anderson' }).waitFor();
    expect(page.url()).toBe(`${product.url}/`);
    expect(await page.getByTestId('api-username').innerText()).toBe('Its API read your token as alice.');
    expect(await page.getByTestId('signed-in-as').innerText()).toBe('Alice Anderson');
    const rail = page.getByRole('navigation', { name: 'Suite modules' });
    expect(await rail.locator('[aria-current="page"]').innerText()).toContain('fixture-product');
    expect(await rail.getByRole('link', { name: 'Control plane' }).getAttribute('href')).toBe(stack.url);
    expect(await page.getByRole('banner').getByRole('combobox', { name: 'Project' }).inputValue()).toBe('Alpha (alpha)');
    await page.locator('html[data-mantine-color-scheme="dark"]').waitFor();
    await page.context().close();
    expect(problems).toEqual([]);
  });

  it("shows carol, without a role, the shell's empty state naming the role that would let her in", async () => {
    const page = await newPage();
    await page.goto(product.url);
    await signInAtDevIdp(page, 'carol');
    await page.getByText('No Fixture product role on any project').waitFor();
    expect(await page.getByRole('main').innerText()).toContain(
      'Ask a control-plane administrator for fixture-product.viewer or fixture-product.operator on a project to say hello, together with the sign-in key fixture-product.',
    );
    await page.context().close();
    expect(problems).toEqual([]);
  });
});
