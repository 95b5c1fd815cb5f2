import type { Dispatcher } from 'undici';

// Past this many bytes waiting for the reader, the connection stops being read (back-pressure).
const HIGH_WATER_BYTES = 64 * 1024;

/**
 * The body of an upstream answer as undici hands it over, without a Node stream in between: a
 * JSON answer is read whole (usually complete by the time its reader asks), an event stream
 * chunk by chunk, what arrived while the reader was busy coming as one chunk. When more than
 * 64 KiB wait, the connection is paused until the reader catches up. A reader that stops before
 * the end (a `break`, a thrown error, `destroy()`) aborts the upstream request.
 */
export class UpstreamBody implements AsyncIterable<Buffer> {
  private chunks: Buffer[] = [];
  private waiting = 0;
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private paused = false;
  /** Read whole: never paused (the limit bounds it), so that the answer arrives at full speed. */
  private whole = false;

  constructor(private readonly controller: Dispatcher.DispatchController) {}

  /** From the dispatch handler: a piece of the body. */
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.waiting += chunk.length;
    if (this.waiting > HIGH_WATER_BYTES && !this.paused && !this.whole) {
      this.paused = true;
      this.controller.pause();
    }
    this.notify();
  }

  /** From the dispatch handler: the body is complete. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /** From the dispatch handler: the body broke off (timeout, connection closed, aborted). */
  fail(error: Error): void {
    this.failure ??= error;
    this.notify();
  }

  /** Stops the upstream request; a reader waiting gets `reason`. */
  destroy(reason?: Error): void {
    // Runs at the end of every read: an Error (and its stack trace) only when there is one to stop.
    if (this.ended || this.failure) return;
    const error = reason ?? new Error('The answer was not read to its end.');
    this.fail(error);
    if (!this.controller.aborted) this.controller.abort(error);
  }

  /**
   * The whole body. More than `limit` bytes rejects with `tooLarge()` and aborts the request
   * rather than holding an unbounded answer in memory.
   */
  async all(limit: number, tooLarge: () => Error): Promise<Buffer> {
    this.whole = true;
    // Resuming may hand over more of the body at once: everything is checked again below.
    if (this.paused) this.resume();
    for (;;) {
      if (this.waiting > limit) {
        const error = tooLarge();
        this.destroy(error);
        throw error;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return this.take() ?? Buffer.alloc(0);
      await this.arrival();
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const chunk = this.take();
        if (chunk) {
          yield chunk;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.ended) return;
        await this.arrival();
      }
    } finally {
      this.destroy();
    }
  }

  /**
   * Everything that has arrived, as one chunk; the connection is read again if it was paused
   * (which may push more at once: the caller looks again before it waits).
   */
  private take(): Buffer | undefined {
    const { chunks } = this;
    if (chunks.length === 0) return undefined;
    const chunk = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.waiting);
    this.chunks = [];
    this.waiting = 0;
    if (this.paused) this.resume();
    return chunk;
  }

  private resume(): void {
    this.paused = false;
    this.controller.resume();
  }

  private arrival(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
