import { hourlySeries } from './hourly-series';

describe('calls over the last day, hour by hour', () => {
  it('shows every hour of the last 24, each tool as a column, an hour without calls as zero', () => {
    const now = new Date('2026-12-02T10:30:00Z');
    const { names, rows } = hourlySeries(
      [
        { hour: '2026-12-02T09:00:00.000Z', tool: 'echo', calls: 2, errors: 1, mean_latency_ms: 12.5 },
        { hour: '2026-12-02T10:00:00.000Z', tool: 'add', calls: 3, errors: 0, mean_latency_ms: 4 },
        { hour: '2026-12-02T10:00:00.000Z', tool: 'echo', calls: 2, errors: 0, mean_latency_ms: 3 },
      ],
      (hour) => hour.tool,
      now,
    );
    expect(names).toEqual(['echo', 'add']);
    expect(rows).toHaveLength(24);
    expect(rows[0]).toEqual({ hour: '11:00', echo: 0, 'echo errors': 0, 'echo ms': 0, add: 0, 'add errors': 0, 'add ms': 0 });
    expect(rows[22]).toMatchObject({ hour: '09:00', echo: 2, 'echo errors': 1, 'echo ms': 12.5, add: 0 });
    expect(rows[23]).toMatchObject({ hour: '10:00', echo: 2, add: 3, 'add ms': 4 });
  });

  it("names the columns as asked: an agent's A2A methods", () => {
    const { names, rows } = hourlySeries(
      [{ hour: '2026-12-02T10:00:00.000Z', method: 'SendMessage', calls: 4, errors: 1, mean_latency_ms: 20 }],
      (hour) => hour.method,
      new Date('2026-12-02T10:59:00Z'),
    );
    expect(names).toEqual(['SendMessage']);
    expect(rows[23]).toEqual({ hour: '10:00', SendMessage: 4, 'SendMessage errors': 1, 'SendMessage ms': 20 });
  });
});
