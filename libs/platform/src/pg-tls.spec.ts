import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgClientConfig, readPgTls } from './pg-tls';

describe('PostgreSQL TLS settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tls-'));
  const ca = join(dir, 'ca.crt');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('nothing set: node-postgres decides (plain, or the URL\'s sslmode)', () => {
    expect(readPgTls({})).toBeUndefined();
    expect(pgClientConfig('postgres://h/db', {})).toEqual({ connectionString: 'postgres://h/db' });
  });

  it('a CA alone means verify-full: the server is verified, by the configured name when given', () => {
    const tls = readPgTls({ PG_TLS_CA_FILE: ca }) as Exclude<ReturnType<typeof readPgTls>, false | undefined>;
    expect(tls).toMatchObject({ rejectUnauthorized: true, ca: expect.stringContaining('BEGIN CERTIFICATE') });
    expect(tls.checkServerIdentity).toBeUndefined();
    const named = readPgTls({ PG_TLS_CA_FILE: ca, PG_TLS_SERVER_NAME: 'db.internal' }) as typeof tls;
    expect(named.checkServerIdentity?.('10.0.0.1', { subject: { CN: 'db.internal' }, subjectaltname: 'DNS:db.internal' } as never)).toBeUndefined();
    expect(named.checkServerIdentity?.('10.0.0.1', { subject: { CN: 'other' }, subjectaltname: 'DNS:other.internal' } as never)?.message).toMatch(/db\.internal/);
    expect(pgClientConfig('postgres://h/db', { PG_SSL_MODE: 'disable' })).toEqual({ connectionString: 'postgres://h/db', ssl: false });
  });

  it('refuses what would not be checked or cannot be read, naming the variable', () => {
    expect(() => readPgTls({ PG_SSL_MODE: 'require', NODE_ENV: 'production' })).toThrow(/PG_SSL_MODE=require .*production/);
    expect(readPgTls({ PG_SSL_MODE: 'require' })).toEqual({ rejectUnauthorized: false });
    expect(() => readPgTls({ PG_SSL_MODE: 'prefer' })).toThrow(/PG_SSL_MODE must be one of/);
    expect(() => readPgTls({ PG_SSL_MODE: 'verify-ca' })).toThrow(/PG_TLS_CA_FILE/);
    expect(() => readPgTls({ PG_TLS_CERT_FILE: ca })).toThrow(/PG_TLS_CERT_FILE and PG_TLS_KEY_FILE go together/);
    expect(() => readPgTls({ PG_TLS_CA_FILE: join(dir, 'missing.crt') })).toThrow(/PG_TLS_CA_FILE names a file that does not exist/);
  });
});
