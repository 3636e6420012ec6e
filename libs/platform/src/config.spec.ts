import { loadServiceConfig } from './config';

describe('loadServiceConfig: the RPC deadlines as shipped', () => {
  it('gives a request 10 s and each attempt of one that may be asked twice 1 s', () => {
    const config = loadServiceConfig('gateway', {});
    expect({ rpcTimeoutMs: config.rpcTimeoutMs, rpcAttemptTimeoutMs: config.rpcAttemptTimeoutMs }).toEqual({ rpcTimeoutMs: 10_000, rpcAttemptTimeoutMs: 1000 });
  });

  it('takes RPC_TIMEOUT_MS and RPC_ATTEMPT_TIMEOUT_MS when set', () => {
    const config = loadServiceConfig('crm', { RPC_TIMEOUT_MS: '3000', RPC_ATTEMPT_TIMEOUT_MS: '2000' });
    expect({ rpcTimeoutMs: config.rpcTimeoutMs, rpcAttemptTimeoutMs: config.rpcAttemptTimeoutMs }).toEqual({ rpcTimeoutMs: 3000, rpcAttemptTimeoutMs: 2000 });
  });
});

describe('loadServiceConfig: the PostgreSQL pool kept open (PG_POOL_KEEP)', () => {
  it("keeps all of search's pool and none of another service's by default", () => {
    expect(loadServiceConfig('search', {}).pool).toMatchObject({ max: 10, keep: 10, idleMs: 30_000 });
    expect(loadServiceConfig('search', { PG_POOL_MAX: '4' }).pool).toMatchObject({ max: 4, keep: 4 });
    for (const service of ['gateway', 'billing', 'crm'] as const) expect(loadServiceConfig(service, {}).pool.keep).toBe(0);
  });

  it('takes PG_POOL_KEEP from 0 to PG_POOL_MAX and refuses more', () => {
    expect(loadServiceConfig('search', { PG_POOL_KEEP: '0' }).pool.keep).toBe(0);
    expect(loadServiceConfig('gateway', { PG_POOL_KEEP: '3' }).pool.keep).toBe(3);
    expect(() => loadServiceConfig('gateway', { PG_POOL_KEEP: '11' })).toThrow('PG_POOL_KEEP must be an integer from 0 to 10, got "11"');
    expect(() => loadServiceConfig('search', { PG_POOL_MAX: '4', PG_POOL_KEEP: '5' })).toThrow('PG_POOL_KEEP must be an integer from 0 to 4');
  });
});
