import { RecentToolCalls } from './recent-tool-calls';

const HOUR_MS = 3_600_000;

describe("a virtual server's recent tool calls", () => {
  it('counts calls and failures per server over the last 24 hours, and each tool hour by hour with its mean latency', () => {
    let now = Date.parse('2026-12-02T09:10:00Z');
    const recent = new RecentToolCalls(() => now);
    recent.record('support', false, 'echo', 0.01);
    recent.record('support', true, 'echo', 0.03);
    now += HOUR_MS;
    recent.record('support', false, 'add', 0.005);
    recent.record('other', false, 'echo', 1);

    expect(recent.lastDay('support')).toEqual({ calls: 3, errors: 1 });
    expect(recent.byToolLastDay('support')).toEqual([
      { hour: '2026-12-02T09:00:00.000Z', tool: 'echo', calls: 2, errors: 1, mean_latency_ms: 20 },
      { hour: '2026-12-02T10:00:00.000Z', tool: 'add', calls: 1, errors: 0, mean_latency_ms: 5 },
    ]);

    // A day later the first hour is gone.
    now += 23 * HOUR_MS;
    expect(recent.byToolLastDay('support').map((hour) => hour.tool)).toEqual(['add']);
    expect(recent.lastDay('support')).toEqual({ calls: 1, errors: 0 });
    expect(recent.byToolLastDay('nobody')).toEqual([]);
  });
});
