import { RetryBudget } from './retry-budget';

describe('RetryBudget', () => {
  it('spends its capacity, then allows a retry per 1/ratio first attempts', () => {
    let now = 0;
    const budget = new RetryBudget(0.2, 0, 3, () => now);
    expect([budget.withdraw(), budget.withdraw(), budget.withdraw(), budget.withdraw()]).toEqual([true, true, true, false]);
    for (let i = 0; i < 4; i++) budget.deposit();
    expect(budget.withdraw()).toBe(false);
    budget.deposit();
    expect(budget.withdraw()).toBe(true);
    expect(budget.withdraw()).toBe(false);
  });

  it('earns perSecond retries a second without traffic, never above its capacity', () => {
    let now = 0;
    const budget = new RetryBudget(0.2, 5, 20, () => now);
    while (budget.withdraw());
    now += 1000;
    expect(Math.round(budget.available())).toBe(5);
    now += 60_000;
    expect(budget.available()).toBe(20);
    for (let i = 0; i < 100; i++) budget.deposit();
    expect(budget.available()).toBe(20);
  });
});
