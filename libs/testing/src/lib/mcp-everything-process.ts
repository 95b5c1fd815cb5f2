import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

export interface McpEverythingProcess {
  /** Its MCP endpoint, e.g. http://127.0.0.1:41234/mcp. */
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * tools/mcp-everything-server (the demo upstream of `npm start`) as its own process on a free port;
 * `era: '2026-07-28'` runs it in that revision only, as `npm start`'s second one.
 */
export function startMcpEverythingServer(era?: '2026-07-28'): Promise<McpEverythingProcess> {
  const child = spawn(process.execPath, [path.join(root, 'tools/mcp-everything-server/src/main.ts')], {
    env: { PATH: process.env['PATH'] ?? '', MCP_EVERYTHING_PORT: '0', ...(era ? { MCP_EVERYTHING_ERA: era } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /mcp-everything-server ready at (\S+)/.exec(output);
      if (!ready?.[1]) return;
      resolve({
        url: ready[1],
        child,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`mcp-everything-server exited with ${code}`)));
  });
}
