/** Time for the dispatcher: `now()` for every stored time and `setTimer` for every wait, so tests can drive both. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms`; returns a function that cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const timer = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(timer);
  },
};

/** An AbortSignal that fires after `ms` on `clock`; call `cancel` when done with it. */
export function timeoutSignal(clock: Clock, ms: number, reason: string): { signal: AbortSignal; cancel: () => void } {
  const controller = new AbortController();
  const cancel = clock.setTimer(ms, () => controller.abort(new DeadlineExceeded(reason)));
  return { signal: controller.signal, cancel };
}

export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

/**
 * What a loop sleeps on between rounds: `wake()` ends the sleep at once (or the next one, if the
 * loop is busy), otherwise a timer on the clock does. Wakes while busy collapse into one.
 */
export class WakeSignal {
  private pending = false;
  private interrupt?: () => void;

  wake(): void {
    this.pending = true;
    this.interrupt?.();
  }

  /** Resolves to true when woken, false when the time ran out. */
  async sleep(clock: Clock, ms: number): Promise<boolean> {
    if (!this.pending) {
      await new Promise<void>((resolve) => {
        const cancel = clock.setTimer(ms, resolve);
        this.interrupt = () => {
          cancel();
          resolve();
        };
      });
      this.interrupt = undefined;
    }
    const woken = this.pending;
    this.pending = false;
    return woken;
  }
}
