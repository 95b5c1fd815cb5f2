import AxeBuilder from '@axe-core/playwright';
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

/** axe's serious and critical findings on the page as it is now, one line each (rule: elements). */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  return (await new AxeBuilder({ page }).analyze()).violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join('; ')}`);
}

/** Those findings in the UI shell's dark theme and then its light one (chosen with its Theme control), each line naming its theme. */
export async function seriousAccessibilityViolationsInBothThemes(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const theme of ['Dark', 'Light'] as const) {
    await page.getByRole('radiogroup', { name: 'Theme' }).getByText(theme, { exact: true }).click();
    await page.locator(`html[data-mantine-color-scheme="${theme.toLowerCase()}"]`).waitFor();
    found.push(...(await seriousAccessibilityViolations(page)).map((violation) => `${theme.toLowerCase()}: ${violation}`));
  }
  return found;
}
