import { ConfigError } from './config-error';
import { natsUrl, withoutCredentials } from './config';
import { natsConnectOptions, natsServers } from './nats-auth';

describe('NATS_URL: one server or a cluster list', () => {
  it('takes one URL as before', () => {
    expect(natsUrl({ NATS_URL: 'nats://127.0.0.1:4222' })).toBe('nats://127.0.0.1:4222');
    expect(natsServers('nats://127.0.0.1:4222')).toEqual(['nats://127.0.0.1:4222']);
  });

  it('takes a comma-separated list, each server checked, in the order given', () => {
    const value = 'nats://127.0.0.1:4232, nats://127.0.0.1:4231,nats://127.0.0.1:4233';
    expect(natsUrl({ NATS_URL: value })).toBe(value);
    const options = natsConnectOptions({ url: value, identity: 'crm' }, 'crm');
    expect(options.servers).toEqual(['nats://127.0.0.1:4232', 'nats://127.0.0.1:4231', 'nats://127.0.0.1:4233']);
    expect(options.noRandomize).toBe(true);
  });

  it('refuses a list with one bad server, naming the variable', () => {
    expect(() => natsUrl({ NATS_URL: 'nats://127.0.0.1:4231,http://127.0.0.1:4232' })).toThrow(ConfigError);
    expect(() => natsUrl({ NATS_URL: 'nats://127.0.0.1:4231,not a url' })).toThrow(/NATS_URL/);
  });

  it('prints a list without credentials', () => {
    expect(withoutCredentials('nats://u:p@a:1,nats://u:p@b:2')).toBe('nats://a:1,nats://b:2');
  });
});
