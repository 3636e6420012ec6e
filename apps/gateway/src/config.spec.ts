import { ConfigError } from '@app/platform';
import { trustProxySetting } from './config';

describe('trustProxySetting (TRUST_PROXY)', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['10.0.0.5', ['10.0.0.5']],
    ['10.0.0.0/8, 172.16.0.0/12,fd00::/8', ['10.0.0.0/8', '172.16.0.0/12', 'fd00::/8']],
    ['loopback,::1/128', ['loopback', '::1/128']],
  ])('%j trusts %j', (raw, expected) => {
    expect(trustProxySetting({ TRUST_PROXY: raw })).toEqual(expected);
  });

  it.each(['1', '2', '0'])('refuses a number of hops (%s), which Fastify would take as trusting no one', (raw) => {
    expect(() => trustProxySetting({ TRUST_PROXY: raw })).toThrow(ConfigError);
    expect(() => trustProxySetting({ TRUST_PROXY: raw })).toThrow(/not a number of hops/);
  });

  it.each(['yes', 'ingress', '10.0.0.0/33', '::/129', '10.0.0/8', '10.0.0.0/8/1', '10.0.0.1,', '300.1.1.1', '10.0.0.0/x'])('refuses %j', (raw) => {
    expect(() => trustProxySetting({ TRUST_PROXY: raw })).toThrow(ConfigError);
  });
});
