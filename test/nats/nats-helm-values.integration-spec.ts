import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, nkeyAuthenticator } from '@nats-io/transport-node';
import { parse } from 'yaml';
import { natsInboxPrefix } from '@app/contracts';
import { ensureNatsIdentities } from '@app/platform';
import { findNatsServer, freePort, MESH_NATS_IDENTITY_DIR, ROOT, tcpAnswers, waitFor } from '../../tools/mesh/processes';
import { HARNESS } from '../harness';

/**
 * `npm run -s nats:config -- --helm-values`: the NATS Helm chart's values overlay that closes the
 * bus in Kubernetes, generated like the local server's configuration (no block pasted by hand).
 * Rendered as the chart renders it (its `config.merge` merged into the nats.conf it writes, as
 * JSON), the configuration passes `nats-server -t`, admits each identity with its generated
 * permissions and refuses an anonymous client.
 */
describe('nats:config --helm-values', () => {
  let dir: string;
  let values: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nats-helm-'));
    const run = spawnSync(process.execPath, [join(ROOT, 'dist/tools/mesh/nats-config.js'), '--helm-values'], {
      cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, [MESH_NATS_IDENTITY_DIR]: join(dir, 'identities') },
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.stringContaining('seeds:') });
    values = run.stdout;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** nats.conf as the chart writes it: its own settings and `config.merge`, as JSON. */
  const rendered = (port: number) => JSON.stringify({ port, host: '127.0.0.1', jetstream: { store_dir: join(dir, 'js') }, ...parse(values).config.merge }, null, 2);

  it('holds an authorization block with every identity and the permissions the generator gives it', () => {
    const { users } = ensureNatsIdentities(join(dir, 'identities'));
    const authorization = parse(values).config.merge.authorization;
    expect(authorization.timeout).toBe(10);
    expect(authorization.users).toEqual(users.map((u) => ({
      nkey: u.publicKey,
      permissions: { publish: { allow: u.permissions.publish }, subscribe: { allow: u.permissions.subscribe }, allow_responses: true },
    })));
    expect(authorization.users.map((u: { nkey: string }) => u.nkey)).toHaveLength(7);
    expect(Object.keys(parse(values))).toEqual(['config']);
  });

  it('renders to a configuration nats-server -t accepts', () => {
    const file = join(dir, 'nats.conf');
    writeFileSync(file, rendered(14222));
    const tested = spawnSync(findNatsServer() as string, ['-t', '-c', file], { encoding: 'utf8' });
    expect({ status: tested.status, output: `${tested.stdout}${tested.stderr}` }).toMatchObject({ status: 0 });
  });

  it('a server running it admits an identity and refuses an anonymous client', async () => {
    const port = await freePort();
    const file = join(dir, 'run.conf');
    writeFileSync(file, rendered(port));
    const server = spawn(findNatsServer() as string, ['-c', file], { stdio: 'ignore' });
    try {
      await waitFor(`nats-server on ${port}`, () => tcpAnswers('127.0.0.1', port), HARNESS.readyTimeoutMs, 50);
      const seed = readFileSync(join(dir, 'identities', 'crm.nk'), 'utf8').trim();
      const crm = await connect({ servers: `127.0.0.1:${port}`, authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)), inboxPrefix: natsInboxPrefix('crm') });
      await crm.flush();
      await crm.close();
      await expect(connect({ servers: `127.0.0.1:${port}`, reconnect: false })).rejects.toThrow(/Authorization/i);
    } finally {
      server.kill('SIGTERM');
    }
  });
});
