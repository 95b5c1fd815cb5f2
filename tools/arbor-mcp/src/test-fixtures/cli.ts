// Test support: the CLI run as a user runs it (`node tools/arbor-mcp/src/main.ts …` from the repo),
// with the official SDK's Client on the other end of its stdio.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const REPO_ROOT = path.resolve(__dirname, '../../../..');
export const CLI = 'tools/arbor-mcp/src/main.ts';

export interface StdioSession {
  client: Client;
  /** What the CLI wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export interface StdioOptions {
  client?: Client;
  env?: Record<string, string>;
  /** Sees stderr as it comes, also when connecting fails. */
  onStderr?: (text: string) => void;
}

export async function connectOverStdio(args: string[], options: StdioOptions = {}): Promise<StdioSession> {
  const client = options.client ?? new Client({ name: 'arbor-mcp-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...args],
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    options.onStderr?.(chunk.toString());
  });
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close();
    throw error;
  }
  return { client, stderr: () => stderr, close: () => client.close() };
}
