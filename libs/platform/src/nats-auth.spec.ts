import { NATS_TLS_TIMEOUT_SECONDS, natsServerConfig } from './nats-auth';

describe('natsServerConfig', () => {
  const base = { host: '127.0.0.1', port: 4222, storeDir: '/tmp/js', users: [] };

  it('gives a TLS client as long to finish its handshake as to authenticate (10 s, not the server\'s 2 s)', () => {
    const config = natsServerConfig({ ...base, tls: { certFile: '/c.pem', keyFile: '/k.pem', caFile: '/ca.pem', verify: true } });
    const tls = config.slice(config.indexOf('tls {'), config.indexOf('}', config.indexOf('tls {')) + 1);
    expect(tls.split('\n').map((line) => line.trim())).toEqual([
      'tls {', 'cert_file: "/c.pem"', 'key_file: "/k.pem"', 'ca_file: "/ca.pem"', 'verify: true', `timeout: ${NATS_TLS_TIMEOUT_SECONDS}`, '}',
    ]);
    expect(NATS_TLS_TIMEOUT_SECONDS).toBe(10);
    expect(config).toMatch(/authorization \{\n {2}timeout: 10\n/);
  });

  it('has no tls block without TLS', () => {
    expect(natsServerConfig(base)).not.toMatch(/tls \{/);
  });
});
