import type { DestinationStream } from 'pino';

/** What LineBatch writes to: pino's sonic-boom destination. */
export interface BatchTarget extends DestinationStream {
  flushSync?: () => void;
}

/**
 * JSON lines on their way to stdout, gathered in a list and handed to the destination joined,
 * one write per `batchChars`: sonic-boom, given lines one by one, appends each to one growing
 * string and measures that string's byte length on every write, which flattens it again — about
 * half of a request line's cost. Lines keep their order (pino's own lines pass through here
 * too) and leave at least every `flushMs`, and at once on flushSync and at exit.
 */
export class LineBatch implements BatchTarget {
  private lines: string[] = [];
  private chars = 0;
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly target: BatchTarget,
    private readonly batchChars: number,
    flushMs: number,
  ) {
    this.timer = setInterval(() => this.flush(), flushMs).unref();
    OPEN.add(this);
    if (OPEN.size === 1) process.once('exit', flushOpenBatches);
  }

  write(line: string): void {
    if (this.closed) return this.target.write(line);
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= this.batchChars) this.flush();
  }

  /** Hands what is gathered to the destination (which writes it asynchronously). */
  flush(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? (this.lines[0] as string) : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.target.write(text);
  }

  /** Writes everything now, synchronously: at shutdown, at exit, for tests that read the output. */
  flushSync(): void {
    this.flush();
    this.target.flushSync?.();
  }

  /** The application closed: what is gathered is written, and later lines go straight on. */
  close(): void {
    this.flushSync();
    this.closed = true;
    clearInterval(this.timer);
    OPEN.delete(this);
    if (OPEN.size === 0) process.removeListener('exit', flushOpenBatches);
  }
}

// One exit hook for every open batch (a test process may hold many applications).
const OPEN = new Set<LineBatch>();

function flushOpenBatches(): void {
  for (const batch of OPEN) batch.flushSync();
}
