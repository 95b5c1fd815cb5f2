import { spawn } from 'node:child_process';
import path from 'node:path';

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
