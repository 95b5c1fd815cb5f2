import { byProvider, dailyCsv, dailySeries, lastDays } from './usage-series';

const totals = (requests: number, cost: number) => ({
  requests,
  prompt_tokens: requests * 7,
  completion_tokens: requests * 5,
  cost_usd: cost,
  estimated_requests: 0,
  estimated_cost_usd: 0,
  cache_hit_requests: 0,
});

describe('usage over a period', () => {
  it('takes the last days up to today as UTC days, both ends included', () => {
    expect(lastDays(7, new Date('2026-03-02T23:30:00Z'))).toEqual({ from: '2026-02-24', to: '2026-03-02' });
    expect(lastDays(1, new Date('2026-03-02T00:00:00Z'))).toEqual({ from: '2026-03-02', to: '2026-03-02' });
  });

  it('shows every day of the period with its spend and errors, a day without calls as zero', () => {
    const series = dailySeries(
      { by_day: [{ day: '2026-02-25', ...totals(3, 0.5) }], calls_by_day: [{ day: '2026-02-26', calls: 1, errors: 1 }] },
      { from: '2026-02-24', to: '2026-02-26' },
    );
    expect(series.map((row) => [row.day, row.requests, row.cost_usd, row.errors])).toEqual([
      ['2026-02-24', 0, 0, 0],
      ['2026-02-25', 3, 0.5, 0],
      ['2026-02-26', 0, 0, 1],
    ]);
  });

  it('adds the deployments of one provider together, the dearest first', () => {
    const rows = byProvider({
      by_deployment: [
        { deployment_id: 'a', provider: 'openai', ...totals(1, 0.1) },
        { deployment_id: 'b', provider: 'anthropic', ...totals(2, 0.5) },
        { deployment_id: 'c', provider: 'openai', ...totals(4, 0.2) },
      ],
    });
    expect(rows.map((row) => [row.provider, row.requests, row.cost_usd])).toEqual([
      ['anthropic', 2, 0.5],
      ['openai', 5, expect.closeTo(0.3, 10)],
    ]);
  });

  it('writes the daily figures as CSV with a header line', () => {
    expect(dailyCsv([{ day: '2026-02-25', ...totals(3, 0.5), errors: 1 }])).toBe(
      'day,requests,errors,prompt_tokens,completion_tokens,cost_usd,cache_hit_requests,estimated_requests,estimated_cost_usd\r\n2026-02-25,3,1,21,15,0.5,0,0,0\r\n',
    );
  });
});
