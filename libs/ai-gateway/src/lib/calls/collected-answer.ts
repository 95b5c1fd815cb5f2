import { EventEmitter } from 'node:events';
import type { CallResponse } from './call-response';

/**
 * Where a call's answer goes when no HTTP response takes it: the status, then the body as the
 * pipeline writes it. `abandon()` acts as a client hanging up, which stops the upstream call;
 * the end of the answer closes it too.
 */
export abstract class CallSink extends EventEmitter implements CallResponse {
  status = 0;
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

  abstract write(chunk: string | Buffer): boolean;

  end(chunk?: string | Buffer): this {
    if (chunk !== undefined) this.write(chunk);
    this.ended();
    this.finished = true;
    this.abandon();
    return this;
  }

  addTrailers(): void {
    // Cost and key spend are recorded by the pipeline either way.
  }

  /** Stops the call as a client's hang-up would (or marks it over once it ended). */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
  }

  /** The answer is complete. */
  protected ended(): void {
    // Nothing by default.
  }
}

/** A call's answer collected in memory (a background response): the status and the body as the client would have got them. */
export class CollectedAnswer extends CallSink {
  private readonly chunks: Buffer[] = [];

  write(chunk: string | Buffer): boolean {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return true;
  }

  /** The body collected so far, as text. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
