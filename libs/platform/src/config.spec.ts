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
