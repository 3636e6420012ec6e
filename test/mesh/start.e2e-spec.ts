import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { SERVICE_NAMES } from '@app/contracts/subjects';
import { randomToken } from '@app/platform/ids';
import { findNatsServer, freePort, MESH_NATS_IDENTITY_DIR, portVariable, ROOT, startNatsServer, tcpAnswers, waitFor } from '../../tools/mesh/processes';
import { HARNESS, meshHookTimeoutMs, PG_SERVER_URL } from '../harness';
import { PostgresAuthPeer } from '../support/postgres-peer';
import { eventually } from '../support/smtp-sink';
import { allowance } from '../support/timing';

const START = join(ROOT, 'dist/tools/mesh/start.js');

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm start`'s script (built), with the environment given; stdout and stderr together. */
function runStart(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [START], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Runs it to its end (it must stop by itself, and soon: no waiting out a server that answered). */
async function startFails(env: Record<string, string>): Promise<{ code: number | null; output: string; ms: number }> {
  const at = Date.now();
  const run = runStart(env);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
  const code = await run.exited;
  clearTimeout(timer);
  return { code, output: run.output(), ms: Date.now() - at };
}

describe('npm start tells the truth about PostgreSQL and NATS', () => {
  const SECRET = `pw-${randomToken(10)}`;

  it('a PostgreSQL that answers but does not know the role: refused, named as such, at once, without the password', async () => {
    const { code, output, ms } = await startFails({ DATABASE_URL: `postgres://devx_no_such_role:${SECRET}@127.0.0.1:5432/postgres` });
    expect(code).toBe(1);
    expect(output).toContain('PostgreSQL at postgres://127.0.0.1:5432/postgres (DATABASE_URL) answered but refused the connection');
    expect(output).toContain('role "devx_no_such_role" does not exist');
    expect(output).not.toMatch(/not answering|does not answer|cannot reach/);
    expect(output).not.toContain(SECRET);
    expect(ms).toBeLessThan(allowance(20_000)); // the old check waited 20 s for a cluster that was up all along
  });

  it('a stock Debian PostgreSQL (scram-sha-256 on TCP) and no password in DATABASE_URL: says to put one there, or trust 127.0.0.1', async () => {
    const peer = await PostgresAuthPeer.start('scram-sha-256');
    try {
      const { code, output } = await startFails({ DATABASE_URL: `postgres://postgres@127.0.0.1:${peer.port}/postgres` });
      expect(code).toBe(1);
      expect(output).toContain(`PostgreSQL at postgres://127.0.0.1:${peer.port}/postgres (DATABASE_URL) answered but asks user "postgres" for a password and DATABASE_URL has none`);
      expect(output).toContain('put it in DATABASE_URL (postgres://postgres:<password>@host:port/db)');
      expect(output).toContain('host all all 127.0.0.1/32 trust');
    } finally {
      await peer.close();
    }
  });

  it.each(['scram-sha-256', 'password'] as const)('a wrong password (%s, 28P01): refused the password, the fix named, the password never printed', async (method) => {
    const peer = await PostgresAuthPeer.start(method);
    try {
      const { code, output } = await startFails({ DATABASE_URL: `postgres://alice:${SECRET}@127.0.0.1:${peer.port}/postgres` });
      expect(peer.passwordsSeen).toHaveLength(1); // the server did get a password (or its SCRAM proof), and refused it
      expect(code).toBe(1);
      expect(output).toContain(`PostgreSQL at postgres://127.0.0.1:${peer.port}/postgres (DATABASE_URL) answered but refused the password of user "alice"`);
      expect(output).toContain('fix the password in DATABASE_URL');
      expect(output).not.toContain(SECRET);
    } finally {
      await peer.close();
    }
  });

  it('nothing listening: cannot reach, with the reason and what to do, without the password', async () => {
    const port = await freePort();
    // 127.0.0.2: loopback, but not an address npm start would start this machine's cluster for
    const { code, output } = await startFails({ DATABASE_URL: `postgres://bob:${SECRET}@127.0.0.2:${port}/postgres` });
    expect(code).toBe(1);
    expect(output).toContain(`cannot reach PostgreSQL at postgres://127.0.0.2:${port}/postgres (DATABASE_URL): connection refused. Start it, set DATABASE_URL`);
    expect(output).not.toContain(SECRET);
  });

  it('SEARCH_INDEX=bands (removed, issue 37 item 4, as rum was): refused at once as a configuration error saying so and what to set, before anything starts', async () => {
    const { code, output, ms } = await startFails({ SEARCH_INDEX: 'bands', DATABASE_URL: `postgres://devx_no_such_role:${SECRET}@127.0.0.1:5432/postgres` });
    expect(code).toBe(1);
    expect(output).toContain('[mesh] configuration: SEARCH_INDEX=bands was removed (');
    expect(output).toContain('unset SEARCH_INDEX (or set memory)');
    // said before PostgreSQL was even asked (that DATABASE_URL would be refused), no service started
    expect(output).not.toContain('PostgreSQL at');
    expect(output).not.toMatch(/^\[(gateway|crm|search|billing|sequences|webhooks)\]/m);
    expect(ms).toBeLessThan(allowance(20_000));
  });

  it('a nats-server without JetStream is refused with how to enable it (the services would restart every 2 s)', async () => {
    const port = await freePort();
    const nats = spawn(findNatsServer()!, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    try {
      await waitFor('nats-server', () => tcpAnswers('127.0.0.1', port), HARNESS.readyTimeoutMs);
      const { code, output } = await startFails({ NATS_URL: `nats://127.0.0.1:${port}` });
      expect(code).toBe(1);
      expect(output).toContain(`NATS at nats://127.0.0.1:${port} (NATS_URL) answered but runs without JetStream`);
      expect(output).toContain('restart nats-server with -js');
      expect(output).not.toContain('[gateway]'); // no service was started
    } finally {
      nats.kill('SIGKILL');
    }
  });

  it('once all six services are up: the API, its docs, NATS, PostgreSQL and mail addresses, the opt-out portal mails to the outbox, no password anywhere', async () => {
    const natsPort = await freePort();
    const natsDir = mkdtempSync(join(tmpdir(), 'start-nats-'));
    const outboxDir = mkdtempSync(join(tmpdir(), 'start-outbox-'));
    const nats = await startNatsServer(natsPort, natsDir);
    const prefix = `t_${randomToken(8).toLowerCase()}_`;
    const server = new URL(PG_SERVER_URL);
    server.password = SECRET; // the test PostgreSQL trusts local connections: any password gets in
    const env: Record<string, string> = {
      DATABASE_URL: server.toString(), DB_PREFIX: prefix, NATS_URL: `nats://mesh:${SECRET}@127.0.0.1:${natsPort}`, [MESH_NATS_IDENTITY_DIR]: nats.identities.dir,
      MAIL_OUTBOX_DIR: outboxDir,
    };
    for (const name of SERVICE_NAMES) env[portVariable(name)] = String(await freePort());
    const run = runStart(env);
    try {
      await waitFor('the addresses', async () => /\[mesh\] {3}Mail .*\n/.test(run.output()) || run.child.exitCode !== null, HARNESS.startTimeoutMs(SERVICE_NAMES.length), 250);
      const output = run.output();
      const api = `http://127.0.0.1:${env.PORT}/api/v1`;
      expect(output).toContain(`[mesh] all ${SERVICE_NAMES.length} services ready`);
      expect(output).toContain(`[mesh]   API         ${api}\n`);
      expect(output).toContain(`[mesh]   API docs    ${api}/docs (OpenAPI: ${api}/openapi.json)\n`);
      expect(output).toContain(`[mesh]   NATS        nats://127.0.0.1:${natsPort} (JetStream)\n`);
      expect(output).toContain(`[mesh]   PostgreSQL  postgres://${server.host}${server.pathname} (databases ${prefix}<service>)\n`);
      expect(output).toMatch(new RegExp(`\\[mesh\\] {3}Mail {8}smtp://127\\.0\\.0\\.1:\\d+, kept in ${outboxDir} \\(read it: npm run -s admin -- mail:outbox\\)\n`));
      expect((await fetch(`${api}/docs`)).status).toBe(200);
      expect(output).not.toContain(SECRET);

      // the opt-out portal mails its confirmation link to the outbox, where the admin CLI reads it
      const asked = await fetch(`${api}/optout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=newcomer%40example.com' });
      expect(asked.status).toBe(200);
      const outbox = () => JSON.parse(execFileSync(process.execPath, [join(ROOT, 'dist/apps/admin/src/main.js'), 'mail:outbox', '--to', 'newcomer@example.com'], {
        cwd: ROOT, env: { PATH: process.env.PATH, MAIL_OUTBOX_DIR: outboxDir }, encoding: 'utf8',
      })) as { data: { to: string[]; subject: string; links: string[] }[] };
      const { data } = (await eventually('the confirmation email in the outbox', () => {
        const read = outbox();
        return read.data.length > 0 ? read : undefined;
      }))!;
      expect(data).toEqual([expect.objectContaining({ to: ['newcomer@example.com'], subject: 'Confirm your opt-out', links: [expect.stringMatching(new RegExp(`^${api}/optout/confirm/[\\w.-]+$`))] })]);
      expect((await fetch(data[0].links[0])).status).toBe(200);
    } finally {
      run.child.kill('SIGTERM');
      const hard = setTimeout(() => run.child.kill('SIGKILL'), 20_000);
      await run.exited;
      clearTimeout(hard);
      expect(run.output()).not.toContain(SECRET);
      nats.child.kill('SIGKILL');
      rmSync(natsDir, { recursive: true, force: true });
      rmSync(outboxDir, { recursive: true, force: true });
      const admin = new Client({ connectionString: PG_SERVER_URL });
      await admin.connect();
      const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
      for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
      await admin.end();
    }
  }, meshHookTimeoutMs(SERVICE_NAMES.length)); // npm start: nats-server and the six services
});
