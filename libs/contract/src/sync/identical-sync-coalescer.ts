/**
 * A courtesy against duplicate work, never a correctness mechanism: identical slug sets that
 * arrive while one is being handled share ONE follow-up run, which starts after the current run
 * ends. Every request is still answered by a handler run that started after it arrived, so a
 * change made between two deliveries is never skipped; only the pile-up of retries and
 * concurrent duplicates collapses.
 */
export class IdenticalSyncCoalescer {
  private readonly entries = new Map<string, { running?: Promise<void>; queued?: Promise<void> }>();

  run(slugs: readonly string[], handle: () => Promise<void>): Promise<void> {
    const key = [...slugs].sort().join('\n');
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {};
      this.entries.set(key, entry);
    }
    if (entry.queued) return entry.queued;
    const current = entry;
    const previous = current.running;
    const start = async (): Promise<void> => {
      current.running = run;
      if (current.queued === run) current.queued = undefined;
      try {
        await handle();
      } finally {
        if (current.running === run) current.running = undefined;
        if (!current.running && !current.queued) this.entries.delete(key);
      }
    };
    // Started from a callback, so `run` is assigned before start() reads it.
    const run: Promise<void> = previous ? previous.catch(() => undefined).then(start) : Promise.resolve().then(start);
    if (previous) current.queued = run;
    else current.running = run;
    return run;
  }
}
