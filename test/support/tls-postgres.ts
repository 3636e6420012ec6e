import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '../../tools/mesh/processes';
import { HARNESS } from '../harness';
import { PrivateCa } from './private-ca';

const BIN = process.env.PG_TEST_BIN_DIR || '/usr/lib/postgresql/15/bin';

export interface TlsPostgres {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: answers only TLS with a client certificate. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A throwaway PostgreSQL server of the test's own (initdb in a temp dir, its own port and socket
 * directory; the machine's cluster is not touched) that accepts only TLS (`hostssl`) with a
 * client certificate from the CA whose common name is the user (`clientcert=verify-full`), its
 * server certificate from the same CA. initdb refuses root, so as root it runs as `postgres`.
 */
export async function startTlsPostgres(ca: PrivateCa): Promise<TlsPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'tls-pg-'));
  const owner = userInfo().uid === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  execFileSync(join(BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'], { ...owner, stdio: 'ignore' });
  for (const [from, to] of [[ca.server.cert, 'server.crt'], [ca.server.key, 'server.key'], [ca.caFile, 'root.crt']]) {
    copyFileSync(from, join(data, to));
    chmodSync(join(data, to), 0o600);
    if (owner) chownSync(join(data, to), owner.uid, owner.gid);
  }
  const port = await freePort();
  appendFileSync(
    join(data, 'postgresql.conf'),
    [
      `listen_addresses = '127.0.0.1'`, `port = ${port}`, `unix_socket_directories = '${dir}'`,
      `ssl = on`, `ssl_cert_file = 'server.crt'`, `ssl_key_file = 'server.key'`, `ssl_ca_file = 'root.crt'`,
      `fsync = off`, `shared_buffers = 16MB`, `max_connections = 40`, '',
    ].join('\n'),
  );
  writeFileSync(join(data, 'pg_hba.conf'), ['local all all trust', 'hostssl all all 127.0.0.1/32 trust clientcert=verify-full', ''].join('\n'));
  const child: ChildProcess = spawn(join(BIN, 'postgres'), ['-D', data], { ...owner, stdio: 'ignore' });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`postgres exited with ${code} (${data})`))));
  exited.catch(() => undefined);
  await Promise.race([
    waitFor('TLS PostgreSQL', async () => {
      try {
        execFileSync(join(BIN, 'pg_isready'), ['-h', dir, '-p', String(port), '-U', 'postgres'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    }, HARNESS.readyTimeoutMs, 100),
    exited,
  ]);
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      if (child.exitCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT'); // fast shutdown
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
