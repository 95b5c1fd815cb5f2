import { GatewayRedis } from '../limits/gateway-redis';
import { AppliedBudget, BudgetCounters } from './budget-counters';

const project: AppliedBudget = { level: 'project', subject: 'alpha', maxBudget: 10n, periodEnd: null };
const day: AppliedBudget = { level: 'tag:daily', subject: 'beta', maxBudget: null, periodEnd: null, reportOnly: true };

describe('budget counters in one process (no Redis)', () => {
  it("shows each call what the other calls in flight hold, and frees a call's hold when it settles", async () => {
    const counters = new BudgetCounters(new GatewayRedis());
    const first = { slot: 'a', amount: 4n };
    const second = { slot: 'b', amount: 5n };
    expect(await counters.standing([project, day], first)).toEqual({ spent: [0n, 0n], held: [0n, 0n] });
    // The second call sees the first's hold; report-only budgets hold nothing.
    expect(await counters.standing([project, day], second)).toEqual({ spent: [0n, 0n], held: [4n, 0n] });
    counters.add([project, day], 3n);
    counters.release([project, day], first);
    expect(await counters.standing([project], { slot: 'c', amount: 0n })).toEqual({ spent: [3n], held: [5n] });
    counters.release([project], second);
    expect(await counters.standing([project], { slot: 'd', amount: 1n })).toEqual({ spent: [3n], held: [0n] });
    // Reading without a hold (the spend reports) sees what is spent only.
    expect(await counters.spent([project])).toEqual([3n]);
  });
});
