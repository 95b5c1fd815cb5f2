// Test-only: the fake upstreams as a child process and a gateway config file of the test's own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

export const MASTER_KEY = 'sk-arbor-test-master';

/** tools/fake-providers on a free port (`node tools/fake-providers/src/main.ts`). */
export function startFake(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(root, 'tools/fake-providers/src/main.ts')], {
    env: { PATH: process.env['PATH'] ?? '', FAKE_PROVIDERS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /fake-providers ready at (\S+)/.exec(output);
      if (ready?.[1]) resolve({ url: ready[1], child });
    });
    child.once('exit', (code) => reject(new Error(`fake-providers exited with ${code}`)));
  });
}

/** Writes an AIGW_CONFIG file in a fresh temporary directory and returns its path. */
export function writeConfig(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'aigw-')), 'config.yaml');
  writeFileSync(file, text);
  return file;
}
