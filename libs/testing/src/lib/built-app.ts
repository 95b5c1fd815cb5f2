import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** @arbor/platform's ROUTE_TABLE_VARIABLE (not imported: the platform's own tests use this library). */
const ROUTE_TABLE_VARIABLE = 'ARBOR_ROUTE_TABLE';

const root = path.resolve(__dirname, '../../../..');

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a built app (`dist/apps/<app>/main.js`, as `npm run build` leaves it) with exactly `env`
 * plus PATH, until it exits or `timeoutMs` passes (then it is killed and code is null).
 */
export function runBuiltApp(app: string, env: Record<string, string>, timeoutMs = 15000): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'dist/apps', app, 'main.js')], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface BuiltService {
  url: string;
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Sends `signal` and waits for the exit; resolves to the exit code (null when killed by a signal). */
  kill(signal: NodeJS.Signals): Promise<number | null>;
  /** The file the service wrote its route table to at start (ARBOR_ROUTE_TABLE: JSON, @arbor/platform's RouteEntry[]). */
  routeTable: string;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs a built app (`dist/apps/<app>/main.js`) with exactly `env` plus PATH and its listen
 * variable on `port` (default: a free one), and waits until it answers /healthz.
 */
export async function startBuiltService(app: string, listenVariable: string, env: Record<string, string>, port?: number): Promise<BuiltService> {
  port ??= await freePort();
  const tables = mkdtempSync(path.join(tmpdir(), `${app}-routes-`));
  const routeTable = path.join(tables, 'routes.json');
  const child = spawn(process.execPath, [path.join(root, 'dist/apps', app, 'main.js')], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', [ROUTE_TABLE_VARIABLE]: routeTable, ...env, [listenVariable]: `127.0.0.1:${port}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.once('exit', () => rmSync(tables, { recursive: true, force: true }));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const service: BuiltService = {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    routeTable,
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${service.url}/healthz`)).ok) return service;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.kill('SIGKILL');
      throw new Error(`${app} did not answer /healthz within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
