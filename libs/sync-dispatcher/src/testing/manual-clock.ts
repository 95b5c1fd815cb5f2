import { Clock } from '../lib/clock';

interface Timer {
  at: number;
  fn: () => void;
}

/** A clock that moves only when told: `advance` runs every timer that has come due. */
export class ManualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];

  constructor(start = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): () => void {
    if (ms <= 0) {
      // Already due: fire on the next turn, as setTimeout(fn, 0) would, without waiting for advance().
      const immediate = setImmediate(fn);
      return () => clearImmediate(immediate);
    }
    const timer = { at: this.current + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  advance(ms: number): void {
    this.current += ms;
    const due = this.timers.filter((t) => t.at <= this.current).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((t) => t.at > this.current);
    for (const timer of due) timer.fn();
  }

  advanceTo(time: number): void {
    this.advance(Math.max(0, time - this.current));
  }
}
