import { runChaos } from '../../../tools/chaos/chaos';

/**
 * The short variant of `npm run chaos -- --cluster`: the shape production runs (two processes of
 * every service, two gateways, three clustered nats-servers, PostgreSQL with a standby), one crm
 * replica SIGKILLed and restarted under lead creates, reveals and enrollments with an
 * Idempotency-Key and GETs spread over both gateways. The other replica answers what the killed
 * one held: no client sees a 5xx or goes unanswered, and nothing is lost or doubled.
 */
describe('cluster chaos (short)', () => {
  it('answers every GET and keyed POST while a crm replica is SIGKILLed, losing and doubling nothing', async () => {
    const report = await runChaos({
      cluster: true,
      phaseMs: 4000,
      workers: 4,
      faults: (name) => name === 'crm-1 SIGKILLed and restarted',
      say: (line) => process.stdout.write(`[cluster chaos] ${line}\n`),
    });
    expect(report.kills).toEqual(['crm-1 SIGKILLed and restarted']);
    expect(report.requests).toBeGreaterThan(50);
    expect(report.clients.safe.attempts).toBeGreaterThan(50);
    const checks = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    for (const name of [
      'idempotent retries converged', 'one lead per create', 'every lead.* event delivered at least once',
      'every ledger sums to its balance', 'no 5xx and no unanswered request for GETs and keyed POSTs',
    ]) {
      expect({ check: name, ok: checks[name]?.ok, detail: checks[name]?.detail }).toMatchObject({ ok: true });
    }
    expect(report.clients.safe).toMatchObject({ errors: 0, unanswered: 0 });
  }, 180_000);
});
