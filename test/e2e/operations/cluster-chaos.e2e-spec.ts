import { CHAOS_CHECKS, runChaos } from '../../../tools/chaos/chaos';
import { longTestMs } from '../../harness';

/**
 * The short variant of `npm run chaos -- --cluster`: the shape production runs (two processes of
 * every service, two gateways behind nginx configured as the prod Ingress, three clustered
 * nats-servers, PostgreSQL with a standby), one crm replica SIGKILLed and restarted under lead
 * creates, reveals and enrollments with an Idempotency-Key, updates and GETs, all sent through
 * packages/client with its default retries. The other replica answers what the killed one held:
 * no error reaches the client's caller, and nothing is lost or doubled; a keyed POST answered by
 * one gateway is replayed by the other. The full run's latency goals and its rate-limit
 * check (which restarts both gateways) are not checked here: a short run on a shared machine says
 * little about p99, and its output says so.
 */
const CHECKED: string[] = [
  CHAOS_CHECKS.converged, CHAOS_CHECKS.oneLead, CHAOS_CHECKS.events, CHAOS_CHECKS.ledgers, CHAOS_CHECKS.noErrors, CHAOS_CHECKS.replay,
];

describe('cluster chaos (short)', () => {
  it('answers every call of the client while a crm replica is SIGKILLed, losing and doubling nothing', async () => {
    const report = await runChaos({
      cluster: true,
      phaseMs: 4000,
      workers: 4,
      faults: (name) => name === 'crm-1 SIGKILLed and restarted',
      checks: (name) => CHECKED.includes(name),
      say: (line) => process.stdout.write(`[cluster chaos] ${line}\n`),
    });
    expect(report.kills).toEqual(['crm-1 SIGKILLed and restarted']);
    expect(report.requests).toBeGreaterThan(50);
    expect(report.clients.caller.calls).toBeGreaterThan(50);
    expect(report.checks.map((c) => c.name).sort()).toEqual([...CHECKED].sort());
    for (const check of report.checks) expect({ check: check.name, ok: check.ok, detail: check.detail }).toMatchObject({ ok: true });
    expect(report.clients.caller).toMatchObject({ errors: 0, unanswered: 0 });
  }, longTestMs(180_000));
});
