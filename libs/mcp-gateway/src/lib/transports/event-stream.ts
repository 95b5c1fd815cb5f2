import type { ServerResponse } from 'node:http';

/**
 * The SSE response stream of one request: its notifications, then its answer. Opened by the first
 * message, so an answer with nothing before it may still go as JSON (`opened` says which).
 */
export class EventStream {
  private isOpen = false;

  get opened(): boolean {
    return this.isOpen;
  }

  constructor(private readonly res: ServerResponse) {}

  send(message: unknown): void {
    this.open();
    if (!this.res.writableEnded) this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  comment(): void {
    if (!this.res.writableEnded) this.res.write(':\n\n');
  }

  end(message: unknown): void {
    this.send(message);
    this.res.end();
  }

  private open(): void {
    if (this.isOpen) return;
    this.isOpen = true;
    this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
    this.res.flushHeaders();
  }
}
