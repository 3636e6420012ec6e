import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChaosOptions, runChaos, singleRunWaitsMs } from '../../tools/chaos/chaos';
import { HARNESS } from '../harness';

/**
 * The run's plan, as the harness sizes a mesh's start: the harness's readiness wait for every
 * service's start and restart, as many started at once as the harness starts.
 */
const PLAN = { phaseMs: 1500, readyTimeoutMs: HARNESS.readyTimeoutMs, startConcurrency: HARNESS.startConcurrency } satisfies Partial<ChaosOptions>;

/**
 * The test's bound: the longest the run waits by its own bounds (singleRunWaitsMs: starts,
 * restarts, nats-server, traffic phases, the checks' waits), plus jest's own bound for what is no
 * bounded wait (the set-up's operator commands, the requests in flight at the end, the checks'
 * queries), as meshHookTimeoutMs does for a mesh's start. A wait, not an assertion of speed.
 */
const CHAOS_TEST_MS = singleRunWaitsMs(PLAN) + HARNESS.testTimeoutMs;

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
    // each process's warnings and errors kept (CHAOS_LOG_DIR, unless set), and printed when the
    // run fails: a failure in a loaded CI run then says what the services saw, not only the client
    const ownLogs = process.env.CHAOS_LOG_DIR ? undefined : mkdtempSync(join(tmpdir(), 'chaos-logs-'));
    const ownLevel = ownLogs !== undefined && process.env.CHAOS_LOG_LEVEL === undefined;
    if (ownLogs) process.env.CHAOS_LOG_DIR = ownLogs;
    if (ownLevel) process.env.CHAOS_LOG_LEVEL = 'warn';
    let passed = false;
    try {
      const report = await runChaos({
        ...PLAN, workers: 3, pgPool: HARNESS.pgPool, say: (line) => process.stdout.write(`[chaos] ${line}\n`),
      });
      passed = report.checks.length > 0 && report.checks.every((c) => c.ok);
      expectReport(report);
    } finally {
      if (ownLogs) {
        if (!passed) printLogTails(ownLogs);
        delete process.env.CHAOS_LOG_DIR;
        if (ownLevel) delete process.env.CHAOS_LOG_LEVEL;
        rmSync(ownLogs, { recursive: true, force: true });
      }
    }
  }, CHAOS_TEST_MS);
});

/** The last lines of each process's log (its warnings and errors), after a failed run. */
function printLogTails(dir: string): void {
  for (const file of readdirSync(dir).sort()) {
    const lines = readFileSync(join(dir, file), 'utf8').trimEnd().split('\n');
    process.stdout.write(`[chaos] --- ${file}: last ${Math.min(40, lines.length)} of ${lines.length} lines\n${lines.slice(-40).map((l) => `[chaos]   ${l.slice(0, 400)}`).join('\n')}\n`);
  }
}

function expectReport(report: Awaited<ReturnType<typeof runChaos>>): void {
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
}
