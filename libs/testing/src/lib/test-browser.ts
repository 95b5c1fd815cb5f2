import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * A headless Chromium driven by Playwright's library. The executable is the one the jest run
 * resolved (`globals: { arbor: { browser: true } }`: TEST_CHROMIUM_PATH or @sparticuz/chromium's).
 * Background networking is off: this machine's closed network would refuse Google's hosts.
 */
export function launchTestBrowser(): Promise<Browser> {
  const executablePath = process.env['TEST_CHROMIUM_PATH'];
  if (!executablePath) throw new Error("TEST_CHROMIUM_PATH is not set: add `globals: { arbor: { browser: true } }` to this project's jest config");
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-gpu'],
  });
}

/** Signs a demo person in at the dev identity provider's form the page shows (a demo user's password is their name). */
export async function signInAtDevIdp(page: Page, username: string): Promise<void> {
  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel('Password').fill(username);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
