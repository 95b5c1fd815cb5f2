// `npm start`'s suite as a child process, and a Chromium signed in to it: what the UI benchmark
// (tools/bench/ui.mjs) and the README screenshots (readme-screenshots.mts) look at. npm start keeps
// its own ports (the realm's redirect URIs name them), so those must be free: on a shared machine,
// run inside a network namespace of your own.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';

const root = path.resolve(import.meta.dirname, '../../..');

/** npm start's addresses: the product UIs' OIDC clients are registered for these. */
export const SUITE_UIS = {
  'control plane': { url: 'http://localhost:8080', firstPage: '/', heading: 'Dashboard' },
  'AI gateway': { url: 'http://localhost:4000', firstPage: '/keys', heading: 'Keys' },
  'MCP gateway': { url: 'http://localhost:4444', firstPage: '/virtual-servers', heading: 'Virtual servers' },
} as const;

export interface RunningSuite {
  /** Everything npm start printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** `node tools/dev/src/main.mts` with its data in `dataDir`, once it says it is running (it builds what changed first). */
export function startSuite(dataDir: string, env: Record<string, string> = {}): Promise<RunningSuite> {
  const child: ChildProcess = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'tools/dev/src/main.mts'], {
    cwd: root,
    env: { ...process.env, LOG_FORMAT: 'json', ...env, ARBOR_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => void stop().then(() => reject(new Error(`npm start did not come up within 10 minutes:\n${output}`))), 600_000);
    const exited = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    };
    child.once('exit', exited);
    child.stdout?.on('data', function ready() {
      if (!output.includes('Arbor is running')) return;
      clearTimeout(timer);
      child.off('exit', exited);
      child.stdout?.off('data', ready);
      resolve({ output: () => output, stop });
    });
  });
}

/** libs/testing's browser helpers, loaded by path (tools are no Nx project that imports @arbor/testing). */
const testBrowser = () =>
  import(pathToFileURL(path.join(root, 'libs/testing/src/lib/test-browser.ts')).href) as Promise<typeof import('../../../libs/testing/src/lib/test-browser.ts')>;

/** The browser tests' headless Chromium (libs/testing: TEST_CHROMIUM_PATH, else @sparticuz/chromium's). */
export async function launchSuiteBrowser(): Promise<Browser> {
  const { resolveTestBrowser } = createRequire(import.meta.url)(path.join(root, 'libs/testing/src/jest/test-browser.cjs')) as { resolveTestBrowser(): Promise<string> };
  process.env['TEST_CHROMIUM_PATH'] = await resolveTestBrowser();
  return (await testBrowser()).launchTestBrowser();
}

/**
 * Opens `url` and waits for `heading`: the issuer's session (cookies) signs the UI in without a
 * form; where the issuer asks anyway (its session ended), `username` signs in at its form.
 */
export async function openSignedIn(page: Page, url: string, heading: string, username: string): Promise<void> {
  const shown = page.getByRole('heading', { name: heading }).first();
  const form = page.getByLabel('Username or email');
  await page.goto(url);
  await shown.or(form).first().waitFor();
  if (await form.isVisible()) await (await testBrowser()).signInAtDevIdp(page, username);
  await shown.waitFor();
}

/**
 * A person signed in at the control plane's UI (the identity provider's session, as cookies): a
 * context made from `storageState` signs in to any product UI with no form, its cache empty.
 */
export async function signedInState(browser: Browser, username: string): Promise<Awaited<ReturnType<BrowserContext['storageState']>>> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const { url, heading } = SUITE_UIS['control plane'];
  await openSignedIn(page, url, heading, username);
  const state = await context.storageState();
  await context.close();
  return state;
}
