import { EventEmitter } from 'node:events';
import { KeepRunning, type Clock } from './keep-running.ts';

class FakeChild extends EventEmitter {
  crash(code = 1): void {
    this.emit('exit', code, null);
  }
}

/** Time that moves only when the test says so. */
class FakeClock implements Clock {
  time = 0;
  private timers: { at: number; run: () => void }[] = [];

  now(): number {
    return this.time;
  }

  after(ms: number, run: () => void): () => void {
    const timer = { at: this.time + ms, run };
    this.timers.push(timer);
    return () => (this.timers = this.timers.filter((t) => t !== timer));
  }

  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const timer of due) timer.run();
  }

  get pending(): number {
    return this.timers.length;
  }
}

function keepRunning() {
  const clock = new FakeClock();
  const started: FakeChild[] = [];
  const said: string[] = [];
  const startFailures: string[] = [];
  const kept = new KeepRunning({
    name: 'fake-providers',
    start: () => {
      const child = new FakeChild();
      started.push(child);
      return child;
    },
    say: (line) => said.push(line),
    stoppedWhileStarting: (how) => startFailures.push(how),
    clock,
  });
  return { kept, clock, started, said, startFailures };
}

describe('npm start keeps a crashed child running', () => {
  it('restarts a child that crashes once the suite is up, saying so in one line', () => {
    const { kept, clock, started, said } = keepRunning();
    kept.keepUp();
    started[0]!.crash();
    expect(said).toEqual(['fake-providers stopped unexpectedly (exit code 1); restarting it in 1 s']);
    expect(kept.current).toBeUndefined();
    clock.advance(999);
    expect(started).toHaveLength(1);
    clock.advance(1);
    expect(started).toHaveLength(2);
    expect(kept.current).toBe(started[1]);
  });

  it('waits twice as long after each quick crash, up to 30 s', () => {
    const { kept, clock, started, said } = keepRunning();
    kept.keepUp();
    const waits: string[] = [];
    for (let crash = 0; crash < 8; crash += 1) {
      started[started.length - 1]!.crash();
      waits.push(said[said.length - 1]!.replace(/.*restarting it in /, ''));
      clock.advance(30000);
    }
    expect(waits).toEqual(['1 s', '2 s', '4 s', '8 s', '16 s', '30 s', '30 s', '30 s']);
    expect(started).toHaveLength(9);
  });

  it('starts again from 1 s once a restarted child has stayed up a minute', () => {
    const { kept, clock, started, said } = keepRunning();
    kept.keepUp();
    started[0]!.crash();
    clock.advance(1000);
    started[1]!.crash();
    clock.advance(2000);
    clock.advance(60000);
    started[2]!.crash();
    expect(said.map((line) => line.replace(/.*restarting it in /, ''))).toEqual(['1 s', '2 s', '1 s']);
  });

  it('does not restart what stopped while the suite was starting: the start fails instead', () => {
    const { clock, started, said, startFailures } = keepRunning();
    started[0]!.crash(78);
    expect(startFailures).toEqual(['exit code 78']);
    expect(said).toEqual([]);
    clock.advance(60000);
    expect(started).toHaveLength(1);
  });

  it('stops restarting on Ctrl-C, even with a restart pending', () => {
    const { kept, clock, started } = keepRunning();
    kept.keepUp();
    started[0]!.crash();
    kept.stop();
    clock.advance(60000);
    expect(started).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });

  it('watches a first child the caller started, and restarts with start()', () => {
    const clock = new FakeClock();
    const first = new FakeChild();
    const again = new FakeChild();
    const kept = new KeepRunning({ name: 'ai-gateway', running: first, start: () => again, say: () => undefined, stoppedWhileStarting: () => undefined, clock });
    expect(kept.current).toBe(first);
    kept.keepUp();
    first.crash();
    clock.advance(1000);
    expect(kept.current).toBe(again);
  });

  it('treats a child that cannot even be spawned as a crash, and tries again', () => {
    const clock = new FakeClock();
    const said: string[] = [];
    let attempts = 0;
    const kept = new KeepRunning({
      name: 'mcp-everything-server',
      start: () => {
        attempts += 1;
        if (attempts === 2) throw new Error('spawn ENOMEM');
        return new FakeChild();
      },
      say: (line) => said.push(line),
      stoppedWhileStarting: () => undefined,
      clock,
    });
    kept.keepUp();
    (kept.current as FakeChild).crash();
    clock.advance(1000);
    expect(said[1]).toBe('mcp-everything-server stopped unexpectedly (spawn ENOMEM); restarting it in 2 s');
    clock.advance(2000);
    expect(kept.current).toBeInstanceOf(FakeChild);
  });
});
