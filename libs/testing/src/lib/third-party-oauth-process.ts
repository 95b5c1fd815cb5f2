import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Page } from 'playwright-core';

export interface ThirdPartyOAuthUpstream {
  /** Its authorisation server. */
  issuer: string;
  /** Its MCP endpoint; its one tool `whoami` answers `wiki account <login> (<client>)`. */
  url: string;
  /** Requests the MCP server refused for want of a token of its own. */
  refused(): number;
  stop(): Promise<void>;
}

/**
 * A third-party MCP server protected by OAuth (third-party-oauth-upstream.mjs: oidc-provider with
 * dynamic client registration and a client `wiki-machines`/`wiki-machines-secret` for the
 * client-credentials grant, and the official MCP SDK) as its own process.
 */
export function startThirdPartyOAuthUpstream(): Promise<ThirdPartyOAuthUpstream> {
  const child = spawn(process.execPath, [path.join(__dirname, 'third-party-oauth-upstream.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line in 15 s:\n${output}`)), 15_000);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /^ready (\S+) (\S+)$/m.exec(output);
      if (!ready?.[1] || !ready[2]) return;
      clearTimeout(timer);
      resolve({
        issuer: ready[1],
        url: ready[2],
        refused: () => output.split('\n').filter((line) => line === 'refused').length,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`third-party upstream exited with ${code}:\n${output}`));
    });
  });
}

/** On the third party's pages (its development login form, then its consent): signs in as `login` (any password) and consents. */
export async function consentAtThirdParty(page: Page, login: string): Promise<void> {
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', 'any password');
  await page.click('button[type="submit"]');
  await page.click('button[type="submit"]');
}
