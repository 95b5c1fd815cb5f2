import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

/** One upstream request as tools/fake-providers recorded it (GET /_fake/requests). */
export interface FakeProviderRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  aborted: boolean;
}

export interface FakeProvidersProcess {
  url: string;
  child: ChildProcess;
  /** What the fakes received, oldest first. */
  requests(): Promise<FakeProviderRequest[]>;
  stop(): Promise<void>;
}

/** tools/fake-providers as its own process on a free port (`node tools/fake-providers/src/main.ts`). */
export function startFakeProviders(): Promise<FakeProvidersProcess> {
  const child = spawn(process.execPath, [path.join(root, 'tools/fake-providers/src/main.ts')], {
    env: { PATH: process.env['PATH'] ?? '', FAKE_PROVIDERS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /fake-providers ready at (\S+)/.exec(output);
      if (!ready?.[1]) return;
      const url = ready[1];
      resolve({
        url,
        child,
        requests: async () => (await fetch(`${url}/_fake/requests`)).json() as Promise<FakeProviderRequest[]>,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`fake-providers exited with ${code}`)));
  });
}
