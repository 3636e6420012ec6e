import { chaosSettings } from '../../tools/chaos/chaos';

/**
 * `npm run chaos` (both shapes) measures what ships: the services get where the run's local peers
 * are and nothing of their own tuning, so every deadline, budget, lease and tick is the shipped
 * default. The rate limit is the one setting lifted (one key carries every simulated user's
 * traffic); the run's rate-limit check restarts the gateways with the shipped one.
 */
describe('the chaos run\'s settings', () => {
  it('set no deadline, budget, lease or tick of a service: only the local peers, the log level and the lifted rate limit', () => {
    const settings = chaosSettings({ caFile: '/tmp/ca.pem' }, { DEMO_SANDBOX_URL: 'http://127.0.0.1:1' });
    expect(Object.keys(settings).sort()).toEqual(
      ['DEMO_SANDBOX_URL', 'HOME', 'LOG_LEVEL', 'NODE_EXTRA_CA_CERTS', 'PATH', 'RATE_LIMIT_PER_MINUTE', 'WEBHOOK_ALLOWED_HOSTS'].sort(),
    );
    for (const name of ['RPC_TIMEOUT_MS', 'RPC_ATTEMPT_TIMEOUT_MS', 'EMAIL_VERIFY_TOTAL_MS', 'SEARCH_PEER_TIMEOUT_MS', 'BILLING_CONSUME_MAX_WAIT_MS', 'SEQUENCES_TICK_MS', 'SEQUENCES_SEND_LEASE_MS']) {
      expect({ name, value: settings[name] }).toEqual({ name, value: undefined });
    }
    expect(settings.PG_POOL_MAX).toBeUndefined();
    expect(settings.PG_POOL_IDLE_MS).toBeUndefined();
  });

  it('give the pools\' size and idle timeout only when the caller passes them (the test suite\'s shared PostgreSQL), and nothing else', () => {
    const shipped = chaosSettings({ caFile: '/tmp/ca.pem' }, undefined);
    const pooled = chaosSettings({ caFile: '/tmp/ca.pem' }, undefined, { max: 4, idleMs: 1000 });
    expect(pooled).toEqual({ ...shipped, PG_POOL_MAX: '4', PG_POOL_IDLE_MS: '1000' });
    expect(shipped.PG_POOL_KEEP).toBeUndefined();
    // and the connections kept, when the caller gives them (the harness's 0)
    expect(chaosSettings({ caFile: '/tmp/ca.pem' }, undefined, { max: 4, idleMs: 1000, keep: 0 })).toEqual({ ...shipped, PG_POOL_MAX: '4', PG_POOL_IDLE_MS: '1000', PG_POOL_KEEP: '0' });
  });
});
