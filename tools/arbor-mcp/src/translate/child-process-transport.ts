// A stdio MCP server as a child process, spoken to as a Transport. The command goes through the
// shell (users write "npx -y some-server --flag" or "FOO=1 node server.js"), so the child leads its
// own process group and closing ends the whole group, not just the shell.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly command: string;
  /** How the process ended ("exit code 127", "signal SIGTERM"), once it has. */
  ended?: string;
  private child?: ChildProcessByStdio<Writable, Readable, null>;
  private readonly buffer = new ReadBuffer();

  constructor(command: string) {
    this.command = command;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      // The child's stderr is ours: its diagnostics reach the operator, never a client.
      const child = spawn(this.command, { shell: true, detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
      this.child = child;
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('exit', (code, signal) => {
        this.ended = signal ? `signal ${signal}` : `exit code ${code}`;
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    });
  }

  /** Each stdout line is one message; a line that is not JSON-RPC is reported and skipped. */
  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(new Error(`the stdio server wrote something other than JSON-RPC: ${(error as Error).message}`));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error('the stdio server has exited'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    child.stdin.end();
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}
