// What `npm start` does when one of its children stops: during the start, the start fails (the
// cause is a setting to fix); once the suite is up, the child is started again with back-off, so a
// demo tool crashing on a hostile request does not take the suite down. Only Ctrl-C stops it.

/** The part of a child process this needs: it stops once. */
export interface Stoppable {
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
}

export interface Clock {
  now(): number;
  /** Calls `run` after `ms`; the function it returns cancels that. */
  after(ms: number, run: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

export interface BackOff {
  /** The wait before the first restart, doubled after each crash that follows soon after. */
  firstMs: number;
  maxMs: number;
  /** A child up at least this long crashed anew: the wait starts again from firstMs. */
  resetAfterMs: number;
}

export const DEFAULT_BACK_OFF: BackOff = { firstMs: 1000, maxMs: 30000, resetAfterMs: 60000 };

export interface KeepRunningOptions<C extends Stoppable> {
  name: string;
  /** Starts the child (again); throwing counts as a crash. */
  start: () => C;
  /** One line for the person at the terminal. */
  say: (line: string) => void;
  /** A child that stops before keepUp(): the start has failed. */
  stoppedWhileStarting: (how: string) => void;
  /** A first child already started (and checked) by the caller; `start` is then called only to restart. */
  running?: C;
  clock?: Clock;
  backOff?: BackOff;
}

/** One child of `npm start`, started again whenever it stops after keepUp() until stop(). */
export class KeepRunning<C extends Stoppable> {
  private child: C | undefined;
  private startedAt = 0;
  private waitMs: number;
  private keepingUp = false;
  private stopped = false;
  private cancelRestart: (() => void) | undefined;
  private readonly clock: Clock;
  private readonly backOff: BackOff;
  private readonly options: KeepRunningOptions<C>;

  constructor(options: KeepRunningOptions<C>) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.backOff = options.backOff ?? DEFAULT_BACK_OFF;
    this.waitMs = this.backOff.firstMs;
    this.child = this.launch(options.running);
  }

  /** The child running now (undefined while waiting to restart one that would not start). */
  get current(): C | undefined {
    return this.child;
  }

  /** From now on a stopped child is started again. */
  keepUp(): void {
    this.keepingUp = true;
  }

  /** No more restarts (Ctrl-C): the caller stops `current`. */
  stop(): void {
    this.stopped = true;
    this.cancelRestart?.();
    this.cancelRestart = undefined;
  }

  private launch(running?: C): C | undefined {
    this.startedAt = this.clock.now();
    let child: C;
    try {
      child = running ?? this.options.start();
    } catch (error) {
      this.stoppedUnexpectedly(error instanceof Error ? error.message : String(error));
      return undefined;
    }
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      this.stoppedUnexpectedly(signal ?? `exit code ${code}`);
    });
    return child;
  }

  private stoppedUnexpectedly(how: string): void {
    if (this.stopped) return;
    if (!this.keepingUp) return this.options.stoppedWhileStarting(how);
    if (this.clock.now() - this.startedAt >= this.backOff.resetAfterMs) this.waitMs = this.backOff.firstMs;
    const wait = this.waitMs;
    this.waitMs = Math.min(wait * 2, this.backOff.maxMs);
    this.options.say(`${this.options.name} stopped unexpectedly (${how}); restarting it in ${formatSeconds(wait)}`);
    this.cancelRestart = this.clock.after(wait, () => {
      this.cancelRestart = undefined;
      if (!this.stopped) this.child = this.launch();
    });
  }
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
