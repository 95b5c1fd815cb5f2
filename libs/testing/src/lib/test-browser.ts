import { chromium, type Browser } from 'playwright-core';

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
