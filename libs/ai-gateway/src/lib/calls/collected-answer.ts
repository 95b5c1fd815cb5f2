import { EventEmitter } from 'node:events';
import type { CallResponse } from './call-pipeline';

/**
 * A call's answer collected in memory instead of sent (a background response): the status and the
 * body as the client would have got them. `abandon()` acts as a client hanging up, which stops
 * the upstream call.
 */
export class CollectedAnswer extends EventEmitter implements CallResponse {
  status = 0;
  private readonly chunks: Buffer[] = [];
  private finished = false;
  private closed = false;

  get headersSent(): boolean {
    return this.status !== 0;
  }

  get writableFinished(): boolean {
    return this.finished;
  }

  setHeader(): this {
    return this;
  }

  writeHead(status: number): this {
    this.status = status;
    return this;
  }

  write(chunk: string | Buffer): boolean {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return true;
  }

  end(chunk?: string | Buffer): this {
    if (chunk !== undefined) this.write(chunk);
    this.finished = true;
    this.close();
    return this;
  }

  addTrailers(): void {
    // Cost and key spend are recorded by the pipeline either way.
  }

  /** Stops the call as a client's hang-up would. */
  abandon(): void {
    this.close();
  }

  /** The body collected so far, as text. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
  }
}
