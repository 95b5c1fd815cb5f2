import { LineBatch } from './line-batch';

/** A destination that records each write it is given. */
function recordingTarget() {
  const writes: string[] = [];
  let syncFlushes = 0;
  return { writes, syncFlushes: () => syncFlushes, write: (text: string) => void writes.push(text), flushSync: () => void syncFlushes++ };
}

describe('log lines in batches', () => {
  it('hands lines over joined, one write per batch, in their order', () => {
    const target = recordingTarget();
    const batch = new LineBatch(target, 30, 60_000);
    for (const line of ['{"a":1}\n', '{"b":2}\n', '{"c":3}\n', '{"d":4}\n']) batch.write(line);
    // 32 characters reached the batch size on the fourth line: one write of all four.
    expect(target.writes).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n{"d":4}\n']);
    batch.write('{"e":5}\n');
    batch.close();
    expect(target.writes).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n{"d":4}\n', '{"e":5}\n']);
  });

  it('writes what it gathered at least every flush interval', async () => {
    const target = recordingTarget();
    const batch = new LineBatch(target, 1_000_000, 10);
    batch.write('{"quiet":true}\n');
    expect(target.writes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.writes).toEqual(['{"quiet":true}\n']);
    batch.close();
  });

  it('writes everything synchronously when asked, and lines after close go straight on', () => {
    const target = recordingTarget();
    const batch = new LineBatch(target, 1_000_000, 60_000);
    batch.write('one\n');
    batch.flushSync();
    expect(target.writes).toEqual(['one\n']);
    expect(target.syncFlushes()).toBe(1);
    batch.close();
    batch.write('after\n');
    expect(target.writes).toEqual(['one\n', 'after\n']);
  });
});
