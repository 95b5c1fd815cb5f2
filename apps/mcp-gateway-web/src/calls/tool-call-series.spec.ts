import { hourlySeries } from './tool-call-series';

describe("a virtual server's tool calls over the last day", () => {
  it('shows every hour of the last 24, each tool as a column, an hour without calls as zero', () => {
    const now = new Date('2026-12-02T10:30:00Z');
    const { tools, rows } = hourlySeries(
      [
        { hour: '2026-12-02T09:00:00.000Z', tool: 'echo', calls: 2, errors: 1, mean_latency_ms: 12.5 },
        { hour: '2026-12-02T10:00:00.000Z', tool: 'add', calls: 3, errors: 0, mean_latency_ms: 4 },
        { hour: '2026-12-02T10:00:00.000Z', tool: 'echo', calls: 2, errors: 0, mean_latency_ms: 3 },
      ],
      now,
    );
    expect(tools).toEqual(['echo', 'add']);
    expect(rows).toHaveLength(24);
    expect(rows[0]).toEqual({ hour: '11:00', echo: 0, 'echo errors': 0, 'echo ms': 0, add: 0, 'add errors': 0, 'add ms': 0 });
    expect(rows[22]).toMatchObject({ hour: '09:00', echo: 2, 'echo errors': 1, 'echo ms': 12.5, add: 0 });
    expect(rows[23]).toMatchObject({ hour: '10:00', echo: 2, add: 3, 'add ms': 4 });
  });
});
