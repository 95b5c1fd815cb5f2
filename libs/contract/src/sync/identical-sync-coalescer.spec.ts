import { IdenticalSyncCoalescer } from './identical-sync-coalescer';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('identical sync sets', () => {
  it('share one follow-up run while one is being handled, and it starts after the current one', async () => {
    const coalescer = new IdenticalSyncCoalescer();
    const events: string[] = [];
    const first = gate();
    let runs = 0;
    const handle = async () => {
      const run = ++runs;
      events.push(`start ${run}`);
      if (run === 1) await first.promise;
      events.push(`end ${run}`);
    };
    const a = coalescer.run(['alpha', 'beta'], handle);
    await Promise.resolve();
    const b = coalescer.run(['beta', 'alpha'], handle);
    const c = coalescer.run(['alpha', 'beta'], handle);
    expect(b).toBe(c);
    first.open();
    await Promise.all([a, b, c]);
    expect(events).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('runs again for a set that arrives after the last run ended', async () => {
    const coalescer = new IdenticalSyncCoalescer();
    const handle = jest.fn(async () => undefined);
    await coalescer.run(['alpha'], handle);
    await coalescer.run(['alpha'], handle);
    expect(handle).toHaveBeenCalledTimes(2);
  });

  it('keeps different sets apart and gives every waiter of a failed run the failure', async () => {
    const coalescer = new IdenticalSyncCoalescer();
    const blocked = gate();
    const calls: string[] = [];
    const failing = coalescer.run(['alpha'], async () => {
      calls.push('alpha');
      await blocked.promise;
      throw new Error('store down');
    });
    const other = coalescer.run(['beta'], async () => {
      calls.push('beta');
    });
    await other;
    expect(calls).toEqual(['alpha', 'beta']);
    const waiter = coalescer.run(['alpha'], async () => {
      throw new Error('still down');
    });
    blocked.open();
    await expect(failing).rejects.toThrow('store down');
    await expect(waiter).rejects.toThrow('still down');
  });
});
