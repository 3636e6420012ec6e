import { CHAOS_CHECKS, ChaosReport, capacityOf, DEFAULT_CAPACITY, goalVerdicts } from '../../tools/chaos/chaos';

/**
 * Issue 35, "A real load": the cluster run measures the shape's capacity (clients back to back,
 * doubled until a doubling adds little) and offers half of it open loop; its goals are printed with
 * a verdict each, decided from the run's checks.
 */
describe('the chaos run\'s capacity phase', () => {
  const step = (clients: number, rate: number) => ({ clients, answered: Math.round(rate * 4), seconds: 4, rate });

  it('goes on while a doubling of the clients answers 10 % more or better', () => {
    expect(capacityOf([step(8, 100)], DEFAULT_CAPACITY)).toMatchObject({ done: false, saturated: false });
    expect(capacityOf([step(8, 100), step(16, 111)], DEFAULT_CAPACITY)).toMatchObject({ done: false, saturated: false });
  });

  it('is saturated when a doubling answers less than 10 % more, and offers half of the best step', () => {
    expect(capacityOf([step(8, 100), step(16, 140), step(32, 150)], DEFAULT_CAPACITY)).toEqual({ best: step(32, 150), saturated: true, offered: 75, done: true });
    // more clients answering fewer (overload): the capacity is the best step's, not the last
    expect(capacityOf([step(8, 100), step(16, 140), step(32, 90)], DEFAULT_CAPACITY)).toEqual({ best: step(16, 140), saturated: true, offered: 70, done: true });
  });

  it('stops at the most clients allowed, unsaturated (the capacity is at least that)', () => {
    const steps = [step(8, 10), step(16, 20), step(32, 40), step(64, 80)];
    expect(capacityOf(steps, DEFAULT_CAPACITY).done).toBe(false);
    expect(capacityOf([...steps, step(128, 160)], DEFAULT_CAPACITY)).toEqual({ best: step(128, 160), saturated: false, offered: 80, done: true });
    expect(capacityOf(steps, { ...DEFAULT_CAPACITY, maxClients: 64 })).toEqual({ best: step(64, 80), saturated: false, offered: 40, done: true });
  });

  it('offers at least one request a second', () => {
    expect(capacityOf([step(8, 0.4)], { ...DEFAULT_CAPACITY, maxClients: 8 }).offered).toBe(1);
  });
});

describe('the chaos run\'s goals', () => {
  const report = (over: Partial<ChaosReport>, checks: [string, boolean][]): ChaosReport => ({
    kills: [], requests: 0, retriedRequests: 0, statuses: {}, phases: [], goals: [],
    clients: { caller: { calls: 0, errors: 0, unanswered: 0, duringFailover: 0 }, attempts: { made: 0, failed: 0 }, p99DuringFaults: 400, p99OutsideFaults: 60 },
    pacing: { offered: 70, achieved: 70, maxSendLagMs: 0 },
    checks: checks.map(([name, ok]) => ({ name, ok, detail: '' })),
    ...over,
  });
  const all = Object.values(CHAOS_CHECKS).map((name) => [name, true] as [string, boolean]);

  it('lists each goal of issue 35 with its verdict', () => {
    const goals = goalVerdicts(report({}, all), true);
    expect(goals.map((g) => [g.goal, g.met])).toEqual([
      ['p99 < 100 ms outside faults', true],
      ['p99 < 1 s during faults', true],
      ["zero errors reach the client's caller, the database failover included", true],
      ['nothing lost or doubled', true],
      ['every other check', true],
    ]);
  });

  it('does not meet a p99 goal over its bound, or when the mesh did not keep up with the offered rate', () => {
    const slow = goalVerdicts(report({ clients: { ...report({}, []).clients, p99OutsideFaults: 100, p99DuringFaults: 999 } }, all), true);
    expect(slow.slice(0, 2).map((g) => g.met)).toEqual([false, true]);
    const behind = goalVerdicts(report({}, all), false);
    expect(behind.slice(0, 2).map((g) => g.met)).toEqual([false, false]);
  });

  it('does not meet "nothing lost" when any of its checks failed, and names it', () => {
    const goals = goalVerdicts(report({}, all.map(([name]) => [name, name !== CHAOS_CHECKS.ledgers])), true);
    expect(goals.find((g) => g.goal === 'nothing lost or doubled')).toEqual({ goal: 'nothing lost or doubled', met: false, detail: `failed: ${CHAOS_CHECKS.ledgers}` });
    expect(goals.find((g) => g.goal === 'every other check')?.met).toBe(true);
  });

  it('leaves out the goals whose checks the run did not make', () => {
    const goals = goalVerdicts(report({}, [[CHAOS_CHECKS.converged, true], [CHAOS_CHECKS.noErrors, false]]), true);
    expect(goals.map((g) => [g.goal, g.met])).toEqual([
      ["zero errors reach the client's caller, the database failover included", false],
      ['nothing lost or doubled', true],
    ]);
  });
});
