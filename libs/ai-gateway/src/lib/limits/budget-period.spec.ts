import { budgetPeriodEnd, calendarPeriodEnd, isTimeZone } from './budget-period';

const at = (iso: string) => Date.parse(iso);

describe('budget periods', () => {
  it("run one duration after another from the key's creation until a reset time is persisted", () => {
    const key = { budgetDuration: '24h', budgetResetAt: null, createdAt: at('2026-03-01T10:00:00Z') };
    expect(budgetPeriodEnd(key, at('2026-03-01T12:00:00Z'))).toBe(at('2026-03-02T10:00:00Z'));
    expect(budgetPeriodEnd(key, at('2026-03-02T10:00:00Z'))).toBe(at('2026-03-03T10:00:00Z'));
    expect(budgetPeriodEnd(key, at('2026-03-10T09:59:59Z'))).toBe(at('2026-03-10T10:00:00Z'));
  });

  it('follow the persisted reset time, also when budget_duration was shortened since', () => {
    const persisted = at('2026-03-31T00:00:00Z');
    expect(budgetPeriodEnd({ budgetDuration: '30d', budgetResetAt: persisted, createdAt: 0 }, at('2026-03-20T00:00:00Z'))).toBe(persisted);
    expect(budgetPeriodEnd({ budgetDuration: '1h', budgetResetAt: persisted, createdAt: 0 }, at('2026-03-20T00:30:00Z'))).toBe(at('2026-03-20T01:00:00Z'));
  });

  it('count months as calendar months', () => {
    const key = { budgetDuration: '1mo', budgetResetAt: at('2026-01-15T00:00:00Z'), createdAt: 0 };
    expect(budgetPeriodEnd(key, at('2026-03-20T00:00:00Z'))).toBe(at('2026-04-15T00:00:00Z'));
    expect(budgetPeriodEnd(key, at('2025-11-20T00:00:00Z'))).toBe(at('2025-12-15T00:00:00Z'));
  });

  it('do not exist without budget_duration: max_budget is then a lifetime budget', () => {
    expect(budgetPeriodEnd({ budgetDuration: null, budgetResetAt: null, createdAt: 0 }, Date.now())).toBeNull();
  });
});

describe('calendar budget periods (the workspace budget, LiteLLM standardised resets)', () => {
  it('end a day at the next midnight of the time zone, not of UTC', () => {
    expect(calendarPeriodEnd('1d', at('2026-03-10T15:00:00Z'), 'UTC')).toBe(at('2026-03-11T00:00:00Z'));
    expect(calendarPeriodEnd('24h', at('2026-03-10T15:00:00Z'), 'UTC')).toBe(at('2026-03-11T00:00:00Z'));
    // 23:30 in New York is already the next day in UTC; the period still ends at New York's midnight.
    expect(calendarPeriodEnd('1d', at('2026-03-11T03:30:00Z'), 'America/New_York')).toBe(at('2026-03-11T04:00:00Z'));
  });

  it('end a week on Monday at midnight', () => {
    // 2026-03-12 is a Thursday.
    expect(calendarPeriodEnd('7d', at('2026-03-12T10:00:00Z'), 'Europe/Paris')).toBe(at('2026-03-15T23:00:00Z'));
  });

  it('end a month (1mo, and LiteLLM 30d) on the first of the next month, across a change of daylight saving time', () => {
    expect(calendarPeriodEnd('1mo', at('2026-03-20T00:00:00Z'), 'Europe/Paris')).toBe(at('2026-03-31T22:00:00Z'));
    expect(calendarPeriodEnd('30d', at('2026-02-28T12:00:00Z'), 'UTC')).toBe(at('2026-03-01T00:00:00Z'));
    expect(calendarPeriodEnd('1mo', at('2026-12-31T23:59:59Z'), 'UTC')).toBe(at('2027-01-01T00:00:00Z'));
  });

  it('are the same on every replica for longer periods and shorter ones', () => {
    const twoMonths = calendarPeriodEnd('2mo', at('2026-03-20T00:00:00Z'), 'UTC');
    expect(calendarPeriodEnd('2mo', at('2026-04-20T00:00:00Z'), 'UTC')).toBe(twoMonths);
    expect(calendarPeriodEnd('1h', at('2026-03-20T10:20:00Z'), 'Asia/Kolkata')).toBe(at('2026-03-20T11:00:00Z'));
  });

  it('know IANA time zones, LiteLLM examples included', () => {
    expect(isTimeZone('US/Eastern')).toBe(true);
    expect(isTimeZone('Asia/Kolkata')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
