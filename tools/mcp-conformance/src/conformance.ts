// Runs the official MCP conformance suite (`conformance server --url`) against a URL and reads back
// every check it recorded, so a test can demand that each one passes, or compare two runs (a server
// reached directly and through the gateway). Test support: loaded by jest, which runs it as CommonJS.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';

export interface ConformanceCheck {
  scenario: string;
  id: string;
  // `${scenario}/${id}`: what to match checks of two runs by.
  key: string;
  name: string;
  description: string;
  status: CheckStatus;
  message?: string;
  details?: unknown;
}

export interface ConformanceRun {
  scenarios: string[];
  checks: ConformanceCheck[];
  // SUCCESS.
  passed: ConformanceCheck[];
  // FAILURE, and WARNING: a SHOULD of the spec the server missed. INFO and SKIPPED are neither.
  failed: ConformanceCheck[];
}

export interface ConformanceOptions {
  // The scenarios a revision requires, run at its wire (the suite's `--requirements`): 2025-11-25
  // for the era opened with initialize, 2026-07-28 for the per-request one. Default 2025-11-25.
  requirements?: '2025-11-25' | '2026-07-28';
  timeoutMs?: number;
}

interface RecordedCheck {
  id: string;
  name: string;
  description: string;
  status: CheckStatus;
  errorMessage?: string;
  details?: unknown;
}

const CLI = path.join(path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

// Output directories are named server-<scenario>-<ISO timestamp with : and . as ->.
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

function runCli(args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`conformance ${args[0]} did not finish within ${timeoutMs} ms:\n${output.slice(-2000)}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // The CLI exits 1 when a check fails; the checks say which, so its exit code is not an error here.
    child.once('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

export async function listServerScenarios(requirements: string): Promise<string[]> {
  const output = await runCli(['list', '--server', '--requirements', requirements], 30_000);
  const section = output.split(/^Client scenarios/m)[0] ?? '';
  return [...section.matchAll(/^\s+- (\S+)/gm)].flatMap((match) => match[1] ?? []);
}

export async function runConformance(url: string, options: ConformanceOptions = {}): Promise<ConformanceRun> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const requirements = options.requirements ?? '2025-11-25';
  const scenarios = await listServerScenarios(requirements);
  const outputDir = await mkdtemp(path.join(tmpdir(), 'mcp-conformance-'));
  try {
    await runCli(['server', '--url', url, '--requirements', requirements, '-o', outputDir], timeoutMs);
    const recorded = new Map<string, RecordedCheck[]>();
    for (const entry of await readdir(outputDir)) {
      const scenario = RESULT_DIR.exec(entry)?.[1];
      if (scenario) recorded.set(scenario, JSON.parse(await readFile(path.join(outputDir, entry, 'checks.json'), 'utf8')) as RecordedCheck[]);
    }
    const checks = scenarios.flatMap((scenario): ConformanceCheck[] => {
      const found = recorded.get(scenario);
      if (!found) {
        return [
          {
            scenario,
            id: 'results',
            key: `${scenario}/results`,
            name: 'Results',
            description: 'The suite recorded results for this scenario',
            status: 'FAILURE',
            message: 'no checks.json was written',
          },
        ];
      }
      return found.map((check) => ({
        scenario,
        id: check.id,
        key: `${scenario}/${check.id}`,
        name: check.name,
        description: check.description,
        status: check.status,
        message: check.errorMessage,
        details: check.details,
      }));
    });
    return {
      scenarios,
      checks,
      passed: checks.filter((check) => check.status === 'SUCCESS'),
      failed: checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING'),
    };
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}
