// Test-only: tools/fake-providers as a child process, started by file path (a library may not
// import a tool), for adapter tests against a provider's real wire format.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

export interface FakeProvidersProcess {
  url: string;
  stop(): void;
}

export function startFakeProviders(): Promise<FakeProvidersProcess> {
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'tools/fake-providers/src/main.ts')], {
    env: { PATH: process.env['PATH'] ?? '', FAKE_PROVIDERS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /fake-providers ready at (\S+)/.exec(output);
      if (ready?.[1]) resolve({ url: ready[1], stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`fake-providers exited with ${code}`)));
  });
}
