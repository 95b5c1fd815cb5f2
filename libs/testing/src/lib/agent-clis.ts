import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The coding agents tests run for real against the gateway, at versions checked here. Each ships
 * its binary for the platform as an npm optional dependency, so the npm registry is all it takes.
 */
export const AGENT_CLIS = {
  codex: { package: '@openai/codex', version: '0.171.0', bin: 'codex', env: 'TEST_CODEX_PATH' },
  claude: { package: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude', env: 'TEST_CLAUDE_CODE_PATH' },
} as const;

export type AgentCli = keyof typeof AGENT_CLIS;

const installing = new Map<string, Promise<string>>();

/**
 * The executable of a coding agent's CLI: the one `TEST_CODEX_PATH` / `TEST_CLAUDE_CODE_PATH`
 * names, else the pinned version, installed with npm on first use into
 * `$XDG_CACHE_HOME/arbor-agent-clis` (`~/.cache/…`), never into the repository. Never a silent
 * skip: without the registry (and no cached copy) the test fails saying how to provide one.
 */
export function agentCliPath(name: AgentCli): Promise<string> {
  const cli = AGENT_CLIS[name];
  const given = process.env[cli.env];
  if (given) {
    if (!existsSync(given)) return Promise.reject(new Error(`${cli.env}=${given}: no such file. Unset it to use ${cli.package}@${cli.version} from npm.`));
    return Promise.resolve(given);
  }
  const prefix = path.join(process.env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache'), 'arbor-agent-clis', `${cli.package.replace('/', '+')}@${cli.version}`);
  const executable = path.join(prefix, 'node_modules', '.bin', cli.bin);
  if (existsSync(executable)) return Promise.resolve(executable);
  const pending = installing.get(prefix) ?? install(cli, prefix, executable);
  installing.set(prefix, pending);
  return pending;
}

async function install(cli: (typeof AGENT_CLIS)[AgentCli], prefix: string, executable: string): Promise<string> {
  mkdirSync(prefix, { recursive: true });
  // The npm that came with this node, whatever is first on PATH.
  const npm = path.join(path.dirname(process.execPath), 'npm');
  try {
    await promisify(execFile)(
      existsSync(npm) ? npm : 'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--prefix', prefix, `${cli.package}@${cli.version}`],
      {
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  } catch (error) {
    throw new Error(
      `${cli.package}@${cli.version} could not be installed from npm into ${prefix} (${error instanceof Error ? error.message : String(error)}). ` +
        `Install it yourself and set ${cli.env} to its executable.`,
    );
  }
  if (!existsSync(executable)) throw new Error(`${cli.package}@${cli.version} installed into ${prefix}, but ${executable} is missing.`);
  return executable;
}
