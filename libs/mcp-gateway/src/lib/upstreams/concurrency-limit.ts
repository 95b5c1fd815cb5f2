/** At most `max` tasks run at once; the others wait their turn in arrival order. */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private max: number) {}

  resize(max: number): void {
    this.max = max;
    this.wake();
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.wake();
    }
  }

  private wake(): void {
    while (this.running < this.max && this.waiting.length > 0) {
      this.running++;
      this.waiting.shift()?.();
    }
  }
}
