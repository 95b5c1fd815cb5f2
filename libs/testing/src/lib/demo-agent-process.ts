import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

export interface DemoAgentProcess {
  /** Its own address; its card at `${url}/.well-known/agent-card.json`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * tools/demo-agent (an A2A agent built with the official SDK) as its own process on a free port;
 * with `token`, every A2A request must carry `Authorization: Bearer <token>`.
 */
export function startDemoAgent(options: { token?: string } = {}): Promise<DemoAgentProcess> {
  const child = spawn(process.execPath, [path.join(root, 'tools/demo-agent/src/main.ts')], {
    env: { PATH: process.env['PATH'] ?? '', DEMO_AGENT_PORT: '0', ...(options.token ? { DEMO_AGENT_TOKEN: options.token } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /demo-agent ready at (\S+)/.exec(output);
      if (!ready?.[1]) return;
      resolve({
        url: ready[1],
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`demo-agent exited with ${code}`)));
  });
}
