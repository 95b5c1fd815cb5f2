import { budgetPeriodEnd } from './budget-period';

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
