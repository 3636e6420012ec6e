import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { SERVICE_NAMES, type ServiceName } from '@app/contracts/subjects';
import { randomToken } from '@app/platform/ids';
import { imageContents } from '../../tools/image/deps';
import { findNatsServer, freePort, httpReady, portVariable, ROOT, waitFor } from '../../tools/mesh/processes';
import { HARNESS, longTestMs, meshHookTimeoutMs, PG_SERVER_URL } from '../harness';
import { compose, DOCKERFILE, environmentOf, imageRuntime, mounts, services } from './compose-file';

/**
 * `docker compose up` without a Docker engine: every service of docker-compose.yml runs as a local
 * process with the command its container would run (its `command`/`entrypoint`, else the image's
 * CMD) and exactly the environment compose would give it (the image's ENV, then its
 * `environment`), in dependency order with the file's conditions (a one-shot step must exit 0, a
 * healthy service must pass its health check). What differs is only where things are:
 * - compose's hostnames (`nats`, `postgres`) are loopback, nats' ports free ones, PostgreSQL the
 *   local server; each app gets a free port in its port variable (gateway: PORT), and every
 *   database a unique DB_PREFIX (dropped afterwards);
 * - each named volume is a temporary directory (a `subpath` one of its directories, which must
 *   exist when the container starts, as Docker requires), the image's WORKDIR the repository
 *   root (dist/ built), any other container path a directory of that container's own;
 * - nats-server is the Debian binary, run with the compose command's flags and the configuration
 *   the one-shot nats-config step wrote, its JetStream store_dir (a path in the nats container)
 *   moved to the natsdata volume's directory (nats-server accepts no second store_dir flag).
 * Then all six apps must become ready, the admin CLI (`docker compose run admin ...`, the operator)
 * creates a workspace and a key, a lead goes through the gateway and comes back, and the bus
 * refuses an anonymous connection.
 */

const OUR_IMAGE = /^lim\//;
/**
 * A service run from one of our app images: named lim/… and built from the project's Dockerfile.
 * compose's postgres (the official postgres image) is a database server, run here as the
 * machine's PostgreSQL like any other that is not ours.
 */
const ours = (name: string) => OUR_IMAGE.test(services[name].image ?? '') && (services[name].build?.dockerfile ?? 'Dockerfile') === 'Dockerfile';
const APPS: readonly ServiceName[] = SERVICE_NAMES;
const isApp = (name: string): name is ServiceName => (APPS as readonly string[]).includes(name);

interface Container {
  name: string;
  child: ChildProcess;
  log: string[];
  exited: Promise<number | null>;
}

describe('docker compose up, each service as a local process with its container\'s command and environment', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'lim-compose-run-'));
  const prefix = `t_${randomToken(8).toLowerCase()}_`;
  const containers = new Map<string, Container>();
  const ports = new Map<string, number>();
  let natsPort = 0;
  let natsHttpPort = 0;
  const pg = new URL(PG_SERVER_URL);

  const volumeDir = (volume: string) => join(tmp, 'volumes', volume);

  /** Where a path on one of `name`'s mounts (a volume, its tmpfs, the image's WORKDIR) is on this machine. */
  function mountedPath(name: string, path: string): string | undefined {
    const svc = services[name];
    const under = (target: string) => path === target || path.startsWith(`${target}/`);
    for (const m of mounts(svc).sort((a, b) => b.target.length - a.target.length)) {
      if (!under(m.target)) continue;
      const base = m.source.startsWith('.') || m.source.startsWith('/') ? join(ROOT, m.source) : join(volumeDir(m.source), m.subpath ?? '');
      return join(base, path.slice(m.target.length));
    }
    for (const target of [svc.tmpfs ?? []].flat() as string[]) if (under(target)) return join(tmp, 'tmpfs', name, path.slice(target.length));
    const workdir = ours(name) ? imageRuntime(svc.build.args).workdir : undefined;
    if (workdir && under(workdir)) return join(ROOT, path.slice(workdir.length));
    return undefined;
  }

  /** Where a path of `name`'s container is on this machine: on a mount, or in a directory of the container's own. */
  const hostPath = (name: string, path: string) => mountedPath(name, path) ?? join(tmp, 'rootfs', name, path);

  /** compose's hostnames and ports, as this machine reaches them. */
  function reach(host: string, port: string): string | undefined {
    if (host === 'nats' && port === '4222') return `127.0.0.1:${natsPort}`;
    if (host === 'postgres' && port === '5432') return `${pg.hostname}:${pg.port || 5432}`;
    return services[host] ? `127.0.0.1:${port}` : undefined;
  }

  function containerEnv(name: string): NodeJS.ProcessEnv {
    const svc = services[name];
    const declared = { ...(ours(name) ? imageRuntime(svc.build.args).env : {}), ...environmentOf(svc) };
    const env: NodeJS.ProcessEnv = {
      // the image's PATH finds its node: here the node running the test
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: hostPath(name, '/home/node'),
    };
    for (const [key, value] of Object.entries(declared)) {
      const reached = value.replace(/\/\/([^/@\s]*@)?([a-z0-9-]+):(\d+)/g, (all, auth: string | undefined, host: string, port: string) => {
        const to = reach(host, port);
        return to ? `//${auth ?? ''}${to}` : all;
      });
      env[key] = reached.startsWith('/') ? hostPath(name, reached) : reached;
    }
    if (declared.DATABASE_URL) env.DB_PREFIX = prefix;
    if (isApp(name)) env[portVariable(name)] = String(ports.get(name));
    return env;
  }

  /** The container's argv and working directory (docker: entrypoint + command, else the image's CMD). */
  function containerCommand(name: string, runArgs?: string[]): { argv: string[]; cwd: string } {
    const svc = services[name];
    const runtime = imageRuntime(svc.build.args);
    expect(DOCKERFILE).not.toMatch(/^ENTRYPOINT /m);
    if (!runArgs && !svc.command && !svc.entrypoint) return { argv: ['/bin/sh', '-c', runtime.cmd], cwd: hostPath(name, runtime.workdir) };
    // an argument naming a place on the container's mounts is that place here; any other is passed
    // as written (nats-config's --store-dir /data is a path in the nats container, not its own)
    const argv = [...(svc.entrypoint ?? []), ...(runArgs ?? svc.command ?? [])].map((arg: string) => (arg.startsWith('/') ? mountedPath(name, arg) ?? arg : arg));
    return { argv, cwd: hostPath(name, svc.working_dir ?? runtime.workdir) };
  }

  function checkSubpaths(name: string): void {
    for (const m of mounts(services[name])) {
      // Docker refuses to start a container whose volume subpath does not exist
      if (m.subpath && !existsSync(join(volumeDir(m.source), m.subpath))) throw new Error(`${name}: volume ${m.source} has no ${m.subpath}`);
    }
  }

  function run(name: string, file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Container {
    const log: string[] = [];
    const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => log.push(String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const container = { name, child, log, exited };
    containers.set(name, container);
    return container;
  }
  const tail = (c: Container) => c.log.join('').slice(-3000);

  /** The nats service: the Debian nats-server with the compose command's flags (the image's entrypoint runs nats-server with them). */
  function startNats(): Container {
    const command: string[] = services.nats.command;
    expect(command[0].startsWith('-')).toBe(true);
    const binary = findNatsServer();
    if (!binary) throw new Error('nats-server not found: install it (Debian: apt-get install nats-server) or set NATS_SERVER_BIN');
    const args = command.map((arg) => (arg.startsWith('/') ? hostPath('nats', arg) : arg));
    const http = args.indexOf('--http_port');
    expect(args[http + 1]).toBe('8222');
    args[http + 1] = String(natsHttpPort);
    const at = args.indexOf('--config');
    const written = readFileSync(args[at + 1], 'utf8');
    const stores = [...written.matchAll(/store_dir: ("[^"]*")/g)];
    expect(stores).toHaveLength(1);
    const storeDir = hostPath('nats', JSON.parse(stores[0][1]));
    expect(storeDir.startsWith(volumeDir('natsdata'))).toBe(true);
    args[at + 1] = join(tmp, 'nats-here.conf');
    writeFileSync(args[at + 1], written.replace(stores[0][0], `store_dir: ${JSON.stringify(storeDir)}`));
    return run('nats', binary, [...args, '--port', String(natsPort), '--addr', '127.0.0.1'], tmp, { PATH: '/usr/bin:/bin' });
  }

  async function healthy(name: string): Promise<boolean> {
    if (name === 'postgres') {
      const client = new Client({ connectionString: PG_SERVER_URL });
      await client.connect();
      try {
        return (await client.query('SELECT 1 AS ok')).rows[0].ok === 1;
      } finally {
        await client.end();
      }
    }
    const test: string[] | undefined = services[name].healthcheck?.test;
    if (test) {
      // CMD wget … http://127.0.0.1:8222/…: the same request to the port nats' monitor got here
      const url = new URL(test.find((arg) => arg.startsWith('http://'))!);
      expect(name).toBe('nats');
      url.port = String(natsHttpPort);
      return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200;
    }
    // the image's HEALTHCHECK
    const check = DOCKERFILE.slice(DOCKERFILE.lastIndexOf('\nFROM ')).match(/^HEALTHCHECK .* CMD \["node", "([^"]+)"\]$/m)![1];
    const { cwd } = containerCommand(name);
    return new Promise((resolve) => execFile('node', [check], { cwd, env: containerEnv(name), timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) lastHealth.set(name, `${err.message} (exit ${err.code}${err.killed ? `, killed by ${err.signal}` : ''}) ${stdout}${stderr}`.trim());
      resolve(!err);
    }));
  }

  /** Why a service's last health check failed. */
  const lastHealth = new Map<string, string>();
  const ups = new Map<string, Promise<void>>();
  /** One service up after its dependencies met their conditions, as compose orders them. */
  function up(name: string): Promise<void> {
    if (!ups.has(name)) {
      ups.set(name, (async () => {
        for (const [dep, { condition }] of Object.entries<any>(services[name].depends_on ?? {})) {
          await up(dep);
          if (condition === 'service_completed_successfully') {
            const code = await containers.get(dep)!.exited;
            if (code !== 0) throw new Error(`${dep} exited with ${code}:\n${tail(containers.get(dep)!)}`);
          } else if (condition === 'service_healthy') {
            await waitFor(`${dep} healthy`, () => healthy(dep), HARNESS.readyTimeoutMs, 250);
          }
        }
        if (name === 'postgres') return; // the local server (a database per service comes with DB_PREFIX)
        checkSubpaths(name);
        if (name === 'nats') {
          startNats();
          return;
        }
        expect(ours(name)).toBe(true);
        const { argv, cwd } = containerCommand(name);
        run(name, argv[0], argv.slice(1), cwd, containerEnv(name));
      })());
    }
    return ups.get(name)!;
  }

  /** `docker compose run --rm <name> <args>`: its dependencies up, then the one-off container. */
  async function composeRun(name: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    for (const dep of Object.keys(services[name].depends_on ?? {})) await up(dep);
    checkSubpaths(name);
    const { argv, cwd } = containerCommand(name, args);
    return new Promise((resolve) => {
      execFile(argv[0], argv.slice(1), { cwd, env: containerEnv(name) }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
  }

  beforeAll(async () => {
    expect(existsSync(join(ROOT, 'dist/tools/nats-setup.js'))).toBe(true);
    for (const volume of Object.keys(compose.volumes)) mkdirSync(volumeDir(volume), { recursive: true });
    natsPort = await freePort();
    natsHttpPort = await freePort();
    for (const app of APPS) ports.set(app, await freePort());
    // `docker compose up`: every service without a profile
    await Promise.all(Object.keys(services).filter((name) => !services[name].profiles).map(up));
  }, meshHookTimeoutMs(APPS.length)); // compose up: nats, the one-shot steps, the six apps started

  afterAll(async () => {
    for (const c of containers.values()) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGTERM');
    const stopped = Promise.all([...containers.values()].map((c) => c.exited));
    const force = setTimeout(() => containers.forEach((c) => c.child.kill('SIGKILL')), 10_000);
    await stopped;
    clearTimeout(force);
    const admin = new Client({ connectionString: PG_SERVER_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
      for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('the one-shot steps ran and exited 0: the bus\'s configuration and one seed per identity in the volume, the EVENTS stream provisioned as the operator, every database migrated', async () => {
    expect(await containers.get('nats-config')!.exited).toBe(0);
    expect(await containers.get('migrate-bus')!.exited).toBe(0);
    expect(containers.get('migrate-bus')!.log.join('\n')).toMatch(/EVENTS stream created/);
    expect(readdirSync(join(volumeDir('natsconfig'), 'identities')).sort()).toEqual(['billing', 'crm', 'gateway', 'operator', 'search', 'sequences', 'webhooks']);
    for (const app of APPS) expect({ app, code: await containers.get(`migrate-${app}`)!.exited }).toEqual({ app, code: 0 });
    const client = new Client({ connectionString: PG_SERVER_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname', [`${prefix}%`]);
      expect(rows.map((r) => r.datname)).toEqual(APPS.map((app) => `${prefix}${app}`).sort());
    } finally {
      await client.end();
    }
  });

  it('all six services become ready (their readiness endpoints: database and NATS answer), each as its own NATS identity', async () => {
    await Promise.all(APPS.map(async (app) => {
      const container = containers.get(app)!;
      const exitedEarly = container.exited.then((code) => Promise.reject(new Error(`${app} exited with ${code}:\n${tail(container)}`)));
      await Promise.race([waitFor(`${app} readiness`, () => httpReady(ports.get(app)!), HARNESS.startTimeoutMs(APPS.length), 250), exitedEarly]);
      exitedEarly.catch(() => undefined);
      expect(containerEnv(app).NATS_NKEY_SEED_FILE).toBe(join(volumeDir('natsconfig'), 'identities', app, 'seed'));
    }));
  }, meshHookTimeoutMs(APPS.length)); // the six apps of compose up, all started at once

  it('the image\'s HEALTHCHECK passes in each app\'s container environment', async () => {
    // one after the other: each check is a node process of its own (Docker runs the check every
    // interval until it passes, or `retries` fail after the start period)
    for (const app of APPS) {
      // the Dockerfile's HEALTHCHECK allows 60 s: a 30 s start period, then 3 retries 10 s apart
      await waitFor(`${app}'s HEALTHCHECK`, () => healthy(app), 60_000, 500).catch((err: Error) => {
        throw new Error(`${err.message}: ${lastHealth.get(app)}`);
      });
    }
  }, longTestMs(400_000));

  it('a request goes through: the admin CLI (docker compose run admin, the operator) makes a workspace and a key, a lead is created through the gateway and read back', async () => {
    const workspace = await composeRun('admin', ['workspace:create', '--name', `compose-${randomToken(6)}`]);
    expect({ code: workspace.code, stderr: workspace.stderr }).toEqual({ code: 0, stderr: '' });
    const { id: workspaceId } = JSON.parse(workspace.stdout);
    expect(workspaceId).toMatch(/^ws_/);
    const key = await composeRun('admin', ['key:create', '--workspace', workspaceId, '--mode', 'live']);
    expect({ code: key.code, stderr: key.stderr }).toEqual({ code: 0, stderr: '' });
    const headers = { authorization: `Bearer ${JSON.parse(key.stdout).key}`, 'content-type': 'application/json' };

    const api = `http://127.0.0.1:${ports.get('gateway')}/api/v1`;
    const created = await fetch(`${api}/leads`, { method: 'POST', headers, body: JSON.stringify({ full_name: 'Ada Compose', email: 'ada@compose.example' }) });
    const lead = (await created.json()) as { id: string };
    expect({ status: created.status, lead }).toMatchObject({ status: 201, lead: { full_name: 'Ada Compose', email: 'ada@compose.example' } });
    expect(lead.id).toMatch(/^lead_/);
    const read = await fetch(`${api}/leads/${lead.id}`, { headers });
    expect({ status: read.status, body: await read.json() }).toMatchObject({ status: 200, body: { id: lead.id, full_name: 'Ada Compose', email: 'ada@compose.example' } });
  });

  it('the bus refuses an anonymous connection', async () => {
    await expect(connect({ servers: `nats://127.0.0.1:${natsPort}`, reconnect: false })).rejects.toThrow(/authoriz|authentication/i);
  });

  it('every command compose runs from one of our images is in that image (tools/image/deps.ts)', () => {
    const byApp = new Map<string, string[]>();
    for (const name of Object.keys(services).filter(ours)) {
      const { argv } = containerCommand(name);
      const script = argv[0] === '/bin/sh' ? argv[2].match(/(dist\/\S+\.js)/)![1].replace('${APP}', services[name].build.args.APP) : argv.find((a) => a.endsWith('.js'))!;
      const app = services[name].build.args.APP;
      byApp.set(app, [...(byApp.get(app) ?? []), script]);
    }
    for (const [app, scripts] of byApp) {
      const files = imageContents(ROOT, app as ServiceName).files;
      for (const script of scripts) expect({ app, script, inImage: files.includes(script) }).toEqual({ app, script, inImage: true });
    }
  });
});
