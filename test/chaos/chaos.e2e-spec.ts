import { runChaos } from '../../tools/chaos/chaos';
import { HARNESS, longTestMs } from '../harness';

/**
 * The short variant of `npm run chaos`: each service SIGKILLed and restarted in turn and
 * nats-server restarted once, under mixed API traffic; every check of the chaos run holds.
 */
describe('chaos (short)', () => {
  it('loses nothing and double-counts nothing while every process is killed in turn', async () => {
    // each phase's answered and waiting requests, as they happen: a stall shows in the test's output
    // the harness's pool size and idle timeout (production's 10 and 30 s are `npm run chaos`'s): its
    // mesh shares PostgreSQL's 100 connections with the suite's other meshes, and two suites side by
    // side reached them with this mesh at production's (docs/testing.md, "Workers and order")
    const report = await runChaos({
      phaseMs: 1500, workers: 3, pgPool: HARNESS.pgPool, say: (line) => process.stdout.write(`[chaos] ${line}\n`),
    });
    expect(report.kills).toEqual([
      'crm SIGKILLed and restarted', 'search SIGKILLed and restarted', 'billing SIGKILLed and restarted',
      'sequences SIGKILLed and restarted', 'webhooks SIGKILLed and restarted', 'gateway SIGKILLed and restarted', 'nats-server restarted',
    ]);
    expect(report.requests).toBeGreaterThan(50);
    expect(report.checks.map((c) => c.name)).toEqual([
      'idempotent retries converged', 'one lead per create', 'every lead.* event delivered at least once',
      'every ledger sums to its balance', 'no lead got two different emails; re-sends within the bound',
    ]);
    for (const check of report.checks) expect({ check: check.name, ok: check.ok, detail: check.detail }).toMatchObject({ ok: true });
  }, longTestMs(300_000));
});
