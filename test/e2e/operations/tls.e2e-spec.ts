import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { pgClientConfig } from '@app/platform/pg-tls';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { makePrivateCa, PrivateCa } from '../../support/private-ca';
import { startTlsPostgres, TlsPostgres } from '../../support/tls-postgres';

/**
 * The mesh over TLS to both NATS and PostgreSQL, trusting a CA of the test's own. The servers'
 * certificate names `nats.mesh.internal` and `db.mesh.internal` and not 127.0.0.1, which the
 * URLs use: a connection succeeds only when NATS_TLS_SERVER_NAME and PG_TLS_SERVER_NAME reach
 * the certificate check. The nats-server requires a client certificate (`verify`), PostgreSQL
 * one whose common name is the user (`hostssl … clientcert=verify-full`, no plain `host` line).
 */
describe('TLS to NATS and PostgreSQL', () => {
  let ca: PrivateCa;
  let pg: TlsPostgres;
  let mesh: TestMesh;
  const pgTls = () => ({
    PG_SSL_MODE: 'verify-full', PG_TLS_CA_FILE: ca.caFile, PG_TLS_CERT_FILE: ca.client.cert, PG_TLS_KEY_FILE: ca.client.key, PG_TLS_SERVER_NAME: 'db.mesh.internal',
  });

  beforeAll(async () => {
    ca = makePrivateCa({ serverNames: ['nats.mesh.internal', 'db.mesh.internal'], loopbackIp: false, clientName: 'postgres' });
    pg = await startTlsPostgres(ca);
    mesh = await TestMesh.start(['gateway', 'crm'], { DATABASE_URL: pg.url, NATS_TLS_SERVER_NAME: 'nats.mesh.internal', ...pgTls() }, {
      natsTls: { caFile: ca.caFile, server: ca.server, client: ca.client },
    });
  }, meshHookTimeoutMs(2)); // and a PostgreSQL with TLS before it
  afterAll(async () => {
    await mesh?.close();
    await pg?.stop();
    ca?.remove();
  });

  const pgQuery = async (env: NodeJS.ProcessEnv, sql: string) => {
    const client = new Client({ ...pgClientConfig(`${pg.url.replace(/\/postgres$/, '')}/${mesh.dbPrefix}crm`, env), connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  };

  it('POST /leads answers through the gateway and crm, over TLS to NATS and to PostgreSQL', async () => {
    const { key } = await mesh.workspace();
    const created = await mesh.request('POST', '/leads', { key, body: { full_name: 'Tess Ellis', email: 'tess@tls.example' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'lead', full_name: 'Tess Ellis', email: 'tess@tls.example' });
    expect((await mesh.request('GET', `/leads/${created.body.id}`, { key })).body.id).toBe(created.body.id);
    // the row is in the TLS server's crm database, and every crm connection there is encrypted
    expect(await pgQuery(pgTls(), `SELECT full_name FROM leads WHERE id = '${created.body.id}'`)).toEqual([{ full_name: 'Tess Ellis' }]);
    const sessions = await pgQuery(pgTls(), `SELECT s.ssl, a.application_name FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = current_database()`);
    expect(sessions.length).toBeGreaterThan(1);
    expect(sessions.every((s) => s.ssl === true)).toBe(true);
  });

  it('PostgreSQL refuses a connection without TLS, without the client certificate, or checking another name', async () => {
    const { PG_TLS_CERT_FILE: _cert, PG_TLS_KEY_FILE: _key, ...noClientCert } = pgTls();
    await expect(pgQuery({ PG_SSL_MODE: 'disable' }, 'SELECT 1')).rejects.toThrow(/no encryption/);
    await expect(pgQuery(noClientCert, 'SELECT 1')).rejects.toThrow(/certificate/);
    await expect(pgQuery({ ...pgTls(), PG_TLS_SERVER_NAME: 'wrong.mesh.internal' }, 'SELECT 1')).rejects.toThrow(/wrong\.mesh\.internal/);
    await expect(pgQuery({ ...pgTls(), PG_TLS_SERVER_NAME: '' }, 'SELECT 1')).rejects.toThrow(/127\.0\.0\.1/);
    expect(await pgQuery(pgTls(), 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('NATS refuses a connection without the client certificate, with one from another CA, or checking another name', async () => {
    const probe = mesh.probeOptions();
    const tls = { ca: readFileSync(ca.caFile, 'utf8'), cert: readFileSync(ca.client.cert, 'utf8'), key: readFileSync(ca.client.key, 'utf8') };
    const attempt = async (options: { ca: string; cert?: string; key?: string; servername?: string }) => {
      const nc = await connect({ ...probe, tls: options, reconnect: false, timeout: 5000 });
      await nc.close();
    };
    await attempt({ ...tls, servername: 'nats.mesh.internal' });
    const { cert: _cert, key: _key, ...caOnly } = tls;
    // the server's handshake alert (the certificate it requires is missing or not its CA's), or its
    // reset when that closes the socket before the alert is read; the same options with the
    // right certificate connected above
    await expect(attempt({ ...caOnly, servername: 'nats.mesh.internal' })).rejects.toThrow(/bad certificate|certificate required|ECONNRESET/);
    await expect(attempt({ ...tls, cert: readFileSync(ca.stranger.cert, 'utf8'), key: readFileSync(ca.stranger.key, 'utf8'), servername: 'nats.mesh.internal' })).rejects.toThrow(/bad certificate|unknown ca|ECONNRESET/);
    await expect(attempt({ ...tls, servername: 'wrong.mesh.internal' })).rejects.toThrow(/wrong\.mesh\.internal/);
    await expect(attempt(tls)).rejects.toThrow(/not in the cert's altnames: DNS:nats\.mesh\.internal/);
    // a client that does not speak TLS at all: told TLS is required, and never answered
    const socket = createConnection({ host: '127.0.0.1', port: mesh.natsPort });
    let heard = '';
    socket.on('data', (chunk) => {
      heard += chunk.toString();
      if (heard.startsWith('INFO')) socket.write('CONNECT {"verbose":false}\r\nPING\r\n');
    });
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('close', resolve));
    expect(heard).toMatch(/^INFO .*"tls_required":true/);
    expect(heard).not.toMatch(/PONG/);
  });
});
