import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import { NATS_IDENTITIES, SERVICE_NAMES } from '@app/contracts';
import { DEFAULT_HTTP_PORTS } from '@app/platform/config';
import { NATS_SEED_FILE_NAME, permissionsFor } from '@app/platform/nats-auth';
import { cliFlag, NATS_SETUP_CONFIG, NATS_SETUP_IDENTITIES, writeNatsSetup } from '../../tools/nats-setup';
import { APP_NODE_FLAGS, APP_V8_FLAGS, appEntry, appNodeArgs } from '../../tools/mesh/processes';
import { compose, DOCKERFILE, environmentOf, imageRuntime, Mount, mounts, services } from './compose-file';

/**
 * docker-compose.yml: `docker compose config` where the compose plugin exists; everywhere, the
 * structure the mesh needs (there is no Docker engine in CI to run it).
 */

const ROOT = join(__dirname, '..', '..');
const CONDITIONS = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);

describe('docker-compose.yml', () => {
  const plugin = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
  (plugin.status === 0 ? it : it.skip)('docker compose config accepts it', () => {
    const out = spawnSync('docker', ['compose', '-f', join(ROOT, 'docker-compose.yml'), 'config', '--quiet'], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
  });

  it('has only known top-level keys, and every volume and dependency it names exists', () => {
    const known = new Set(['name', 'services', 'volumes', 'networks', 'configs', 'secrets']);
    expect(Object.keys(compose).filter((k) => !k.startsWith('x-') && !known.has(k))).toEqual([]);
    for (const [name, svc] of Object.entries(services)) {
      expect({ name, runnable: Boolean(svc.image || svc.build) }).toEqual({ name, runnable: true });
      for (const [dep, spec] of Object.entries<any>(svc.depends_on ?? {})) {
        expect(services[dep]).toBeDefined();
        expect(CONDITIONS.has(spec.condition)).toBe(true);
        if (spec.condition === 'service_healthy') expect(services[dep].healthcheck).toBeDefined();
      }
      for (const { source } of mounts(svc)) {
        if (!source.startsWith('.') && !source.startsWith('/')) expect(Object.keys(compose.volumes)).toContain(source);
      }
    }
  });

  it('uses only service keys of the Compose specification (a misspelt key would be an error there)', () => {
    const known = new Set([
      'build', 'image', 'command', 'entrypoint', 'environment', 'env_file', 'depends_on', 'ports', 'expose', 'volumes',
      'tmpfs', 'read_only', 'user', 'cap_add', 'cap_drop', 'security_opt', 'healthcheck', 'restart', 'stop_grace_period',
      'stop_signal', 'init', 'labels', 'networks', 'working_dir', 'deploy', 'profiles', 'pull_policy', 'logging', 'ulimits',
    ]);
    for (const [name, svc] of Object.entries(services)) {
      expect({ name, unknown: Object.keys(svc).filter((k) => !known.has(k)) }).toEqual({ name, unknown: [] });
      for (const key of Object.keys(svc.healthcheck ?? {})) expect(['test', 'interval', 'timeout', 'retries', 'start_period', 'start_interval', 'disable']).toContain(key);
      if (svc.build) expect(Object.keys(svc.build).every((k) => ['context', 'dockerfile', 'args', 'target'].includes(k))).toBe(true);
      // a volume's long syntax: only the specification's keys (an unknown one is an error there)
      for (const volume of (svc.volumes ?? []).filter((v: unknown) => typeof v === 'object')) {
        expect({ name, unknown: Object.keys(volume).filter((k) => !['type', 'source', 'target', 'read_only', 'volume', 'bind', 'tmpfs'].includes(k)) }).toEqual({ name, unknown: [] });
        expect(Object.keys(volume.volume ?? {}).every((k) => ['nocopy', 'subpath', 'labels'].includes(k))).toBe(true);
      }
    }
  });

  it('runs PostgreSQL with one database per service and NATS with JetStream, both with health checks', () => {
    const init = readFileSync(join(ROOT, 'docker', 'postgres-init.sql'), 'utf8');
    for (const service of SERVICE_NAMES) expect(init).toContain(`CREATE DATABASE lim_${service};`);
    expect(services.postgres.healthcheck.test).toContain('pg_isready');
    expect(services.nats.command).toContain('--jetstream');
    expect(services.nats.volumes.some((v: string) => v.endsWith(':/data'))).toBe(true);
    expect(services.nats.healthcheck.test.join(' ')).toContain('/healthz');
  });

  it.each([...SERVICE_NAMES])('%s: migrates first (one-shot step), then starts hardened', (service) => {
    const app = services[service];
    const step = services[`migrate-${service}`];
    expect(app.build.args.APP).toBe(service);
    // its own image (Dockerfile: the service's code and packages only), which its migration step runs
    expect(app.image).toBe(`lim/${service}`);
    expect(step.image).toBe(app.image);
    expect(step.build).toEqual(app.build);
    expect(step.command).toEqual(['node', 'dist/tools/migrate.js', service]);
    expect(step.restart).toBe('no');
    expect(step.depends_on.postgres.condition).toBe('service_healthy');
    expect(app.depends_on[`migrate-${service}`].condition).toBe('service_completed_successfully');
    expect(app.depends_on['migrate-bus'].condition).toBe('service_completed_successfully');
    expect(app.depends_on.nats.condition).toBe('service_healthy');
    for (const container of [app, step]) {
      expect(container).toMatchObject({ read_only: true, user: '1000:1000', cap_drop: ['ALL'] });
      expect(container.environment.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(container.environment.NATS_URL).toBe('nats://nats:4222');
    }
    expect(app.stop_grace_period).toBe('30s');
  });

  it('publishes only the gateway, on its port; crm and the gateway share the export volume', () => {
    const published = Object.entries(services).filter(([, s]) => s.ports?.length).map(([n]) => n);
    expect(published).toEqual(['gateway']);
    expect(services.gateway.ports).toEqual([`${DEFAULT_HTTP_PORTS.gateway}:${DEFAULT_HTTP_PORTS.gateway}`]);
    const exports = (service: string) => mounts(services[service]).filter((m) => m.source === 'exports');
    expect(exports('crm')).toEqual([{ source: 'exports', target: '/var/lib/lim/exports', readOnly: false }]);
    expect(exports('crm')).toEqual(exports('gateway'));
    expect(runtimeOf('gateway').env.EXPORT_STORAGE_DIR).toBe('/var/lib/lim/exports');
  });
});

/** Where each container mounts the volume nats-config writes (server/ and identities/<identity>/). */
const natsVolume = (service: string): Mount[] => mounts(services[service]).filter((m) => m.source === 'natsconfig');
const runtimeOf = (service: string) => imageRuntime(services[service].build?.args ?? {});
const composeNatsPort = () => new URL(services.gateway.environment.NATS_URL).port;
const DOCKERFILE_RUNTIME = DOCKERFILE.slice(DOCKERFILE.lastIndexOf('\nFROM '));

describe('docker-compose.yml: the bus is the mesh\'s own, as `npm start` runs it', () => {
  const setup = services['nats-config'];

  it('a one-shot nats-config step (the gateway\'s image) writes the configuration and the identities to a volume, before NATS starts', () => {
    expect(setup.image).toBe(services.gateway.image);
    expect(setup.build).toEqual(services.gateway.build);
    expect(setup.restart).toBe('no');
    expect(setup).toMatchObject({ read_only: true, user: '1000:1000', cap_drop: ['ALL'] });
    // the volume's root: the one place it writes (owned by uid 1000 in the image, see the Dockerfile)
    expect(natsVolume('nats-config')).toEqual([{ source: 'natsconfig', target: '/var/lib/lim/nats', readOnly: false }]);
    expect(runtimeOf('nats-config').user).toMatch(/^(1000|node)/);
    expect(DOCKERFILE_RUNTIME).toMatch(/chown node:node [^\n]*\/var\/lib\/lim\/nats/);
    const [node, entry, dir, ...flags] = setup.command;
    expect([node, entry, dir]).toEqual(['node', 'dist/tools/nats-setup.js', '/var/lib/lim/nats']);
    // the server listens where the services look for it, and keeps JetStream in nats' data volume
    expect(cliFlag(flags, 'host', '')).toBe('0.0.0.0');
    expect(cliFlag(flags, 'port', '')).toBe(composeNatsPort());
    expect(cliFlag(flags, 'store-dir', '')).toBe(mounts(services.nats).find((m) => m.source === 'natsdata')?.target);
    expect(services.nats.depends_on['nats-config'].condition).toBe('service_completed_successfully');
  });

  it('nats-server runs with that configuration, and sees no seed', () => {
    const command: string[] = services.nats.command;
    const config = command[command.indexOf('--config') + 1];
    const [mount] = natsVolume('nats');
    expect(natsVolume('nats')).toEqual([{ source: 'natsconfig', target: mount.target, readOnly: true, subpath: posix.dirname(NATS_SETUP_CONFIG) }]);
    expect(config).toBe(posix.join(mount.target, posix.basename(NATS_SETUP_CONFIG)));
    expect(command).not.toContain('--store_dir'); // the configuration has it (nats-server refuses it twice)
    expect(command.filter((arg) => /^--?(user|pass|auth|no_auth_user)/.test(arg))).toEqual([]);
  });

  it.each([...SERVICE_NAMES, 'admin'])('%s: its own NATS identity, read-only, and no other', (service) => {
    const identity = service === 'admin' ? 'operator' : service;
    const env = environmentOf(services[service]);
    expect(env.NATS_NKEY_SEED).toBeUndefined();
    const [mount] = natsVolume(service);
    expect(natsVolume(service)).toEqual([{ source: 'natsconfig', target: mount.target, readOnly: true, subpath: `${NATS_SETUP_IDENTITIES}/${identity}` }]);
    expect(env.NATS_NKEY_SEED_FILE).toBe(posix.join(mount.target, NATS_SEED_FILE_NAME));
    // where Kubernetes mounts it too (lim-config's NATS_NKEY_SEED_FILE)
    expect(readFileSync(join(ROOT, 'k8s/base/configmap.yaml'), 'utf8')).toContain(`NATS_NKEY_SEED_FILE: ${env.NATS_NKEY_SEED_FILE}\n`);
    expect(env.NATS_URL).toBe('nats://nats:4222');
    if (service !== 'admin') expect(services[service].depends_on.nats.condition).toBe('service_healthy');
  });

  it('the operator provisions the EVENTS stream in a one-shot migrate-bus step (the gateway\'s image) once NATS is up, before every service starts', () => {
    const step = services['migrate-bus'];
    expect(step.image).toBe(services.gateway.image);
    expect(step.build).toEqual(services.gateway.build);
    expect(step.command).toEqual(['node', 'dist/tools/migrate.js', 'bus']);
    expect(step).toMatchObject({ read_only: true, user: '1000:1000', cap_drop: ['ALL'], restart: 'no' });
    expect(step.depends_on).toEqual({ nats: { condition: 'service_healthy' } });
    const env = environmentOf(step);
    expect(Object.keys(env).sort()).toEqual(['NATS_NKEY_SEED_FILE', 'NATS_URL']);
    expect(env.NATS_URL).toBe('nats://nats:4222');
    const [mount] = natsVolume('migrate-bus');
    expect(natsVolume('migrate-bus')).toEqual([{ source: 'natsconfig', target: mount.target, readOnly: true, subpath: `${NATS_SETUP_IDENTITIES}/operator` }]);
    expect(env.NATS_NKEY_SEED_FILE).toBe(posix.join(mount.target, NATS_SEED_FILE_NAME));
    for (const service of SERVICE_NAMES) expect(services[service].depends_on['migrate-bus']).toEqual({ condition: 'service_completed_successfully' });
  });

  it('no container but the one-shot step sees more than its own identity; the database migration steps and PostgreSQL see none', () => {
    const seen = Object.fromEntries(Object.keys(services).map((name) => [name, natsVolume(name).map((m) => m.subpath ?? '/')]));
    expect(seen).toEqual({
      postgres: [],
      'nats-config': ['/'],
      nats: ['server'],
      ...Object.fromEntries(SERVICE_NAMES.map((s) => [`migrate-${s}`, []])),
      ...Object.fromEntries(SERVICE_NAMES.map((s) => [s, [`identities/${s}`]])),
      admin: ['identities/operator'],
      'migrate-bus': ['identities/operator'],
    });
    for (const name of Object.keys(services)) expect({ name, seed: environmentOf(services[name]).NATS_NKEY_SEED }).toEqual({ name, seed: undefined });
  });

  it('the admin CLI: only with `run` (a profile), as the operator, NATS and nothing else', () => {
    const admin = services.admin;
    expect(admin.profiles).toEqual(['admin']);
    expect(admin.image).toBe(services.gateway.image);
    expect(admin.entrypoint).toEqual(['node', 'dist/apps/admin/src/main.js']);
    expect(Object.keys(environmentOf(admin)).sort()).toEqual(['NATS_NKEY_SEED_FILE', 'NATS_URL']);
    expect(admin).toMatchObject({ read_only: true, user: '1000:1000', cap_drop: ['ALL'], restart: 'no' });
  });

  it('what the step writes: the configuration of every identity with its permissions, anonymous refused; one private seed per identity', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lim-nats-setup-'));
    try {
      const flags = setup.command.slice(3);
      const written = writeNatsSetup(dir, { host: cliFlag(flags, 'host', ''), port: Number(cliFlag(flags, 'port', '')), storeDir: cliFlag(flags, 'store-dir', '') });
      expect(written.configFile).toBe(join(dir, NATS_SETUP_CONFIG));
      const config = readFileSync(written.configFile, 'utf8');
      expect(config).toContain(`port: ${composeNatsPort()}\n`);
      expect(config).toContain('host: "0.0.0.0"\n');
      expect(config).toContain('jetstream { store_dir: "/data" }');
      // a seed (SU…) starts a word; the public keys (U…, 56 base32 characters) may hold "SU" inside
      expect(config).not.toMatch(/no_auth_user|password|\bSU[A-Z2-7]{20}/);
      expect(readdirSync(join(dir, NATS_SETUP_IDENTITIES)).sort()).toEqual([...NATS_IDENTITIES].sort());
      for (const identity of NATS_IDENTITIES) {
        const seedDir = join(dir, NATS_SETUP_IDENTITIES, identity);
        expect(readdirSync(seedDir)).toEqual([NATS_SEED_FILE_NAME]);
        expect({ identity, dir: statSync(seedDir).mode & 0o777, seed: statSync(written.seedFiles[identity]).mode & 0o777 }).toEqual({ identity, dir: 0o700, seed: 0o600 });
        const publicKey = nkeys.fromSeed(new TextEncoder().encode(readFileSync(written.seedFiles[identity], 'utf8').trim())).getPublicKey();
        const user = config.split('\n').find((line) => line.includes(publicKey));
        expect(user).toContain(`publish: { allow: [${permissionsFor(identity).publish.map((s) => JSON.stringify(s)).join(', ')}] }`);
      }
      // a second run keeps the identities
      const before = readFileSync(written.seedFiles.gateway, 'utf8');
      writeNatsSetup(dir, { host: '0.0.0.0', port: 4222, storeDir: '/data' });
      expect(readFileSync(written.seedFiles.gateway, 'utf8')).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  /** The last stage: the image that runs. */
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  it('is multi-stage, runs as a non-root user, has a HEALTHCHECK and execs node as PID 1', () => {
    expect(dockerfile.match(/^FROM /gm)!.length).toBeGreaterThanOrEqual(2);
    expect(runtime).toMatch(/^USER (1000|node)/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*docker\/healthcheck\.js/m);
    expect(runtime).toMatch(/^CMD exec node (--[a-z0-9=-]+ )*dist\/apps\/\$\{APP\}\/main\.js$/m);
    expect(runtime).not.toMatch(/npm ci(?! --omit=dev)/);
  });

  it('builds on the current Node LTS (24), pinned by digest, for every stage', () => {
    const pin = dockerfile.match(/^ARG NODE_IMAGE=(\S+)$/m)?.[1];
    expect(pin).toMatch(/^node:24(\.\d+){0,2}-[a-z]+-slim@sha256:[0-9a-f]{64}$/);
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    const stages = [...dockerfile.matchAll(/^FROM \S+ AS (\S+)/gm)].map((m) => m[1]);
    for (const base of bases) expect([...stages, '${NODE_IMAGE}']).toContain(base);
  });

  it('the image holds one service\'s files only: the runtime copies from the per-service stage, never all of node_modules or dist', () => {
    const stage = dockerfile.slice(dockerfile.indexOf('AS image\n'), dockerfile.lastIndexOf('\nFROM '));
    expect(stage).toMatch(/^ARG APP$/m);
    expect(stage).toMatch(/node dist\/tools\/image\/deps\.js "\$APP" \/image/);
    const copies = runtime.split('\n').filter((line) => line.startsWith('COPY'));
    expect(copies.filter((line) => line.includes('--from='))).toEqual(['COPY --from=image /image/ ./']);
    expect(copies.filter((line) => !line.includes('--from='))).toEqual(['COPY docker/healthcheck.js docker/healthcheck.js']);
  });

  it('carries the OCI labels: title per service, source, version and revision from build arguments', () => {
    const label = (key: string) => runtime.match(new RegExp(`org\\.opencontainers\\.image\\.${key}="([^"]*)"`))?.[1];
    expect(label('title')).toBe('lim-${APP}');
    expect(label('source')).toMatch(/^https:\/\//);
    expect(label('version')).toBe('${VERSION}');
    expect(label('revision')).toBe('${REVISION}');
    expect(runtime).toMatch(/^ARG VERSION=/m);
    expect(runtime).toMatch(/^ARG REVISION=/m);
  });

  it('runs the services with the V8 flags the local mesh uses', () => {
    expect(runtime).toContain(`\nENV NODE_OPTIONS="${APP_NODE_FLAGS.join(' ')}"\n`);
    // and node accepts them in NODE_OPTIONS (not every V8 flag is allowed there)
    const run = spawnSync(process.execPath, ['-e', 'process.exit(0)'], { env: { ...process.env, NODE_OPTIONS: APP_NODE_FLAGS.join(' ') }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // the flags NODE_OPTIONS refuses are node's arguments in the CMD, as the local mesh passes them
    expect(runtime).toContain(`\nCMD exec node ${APP_V8_FLAGS.join(' ')} dist/apps/\${APP}/main.js\n`);
    const direct = spawnSync(process.execPath, [...APP_V8_FLAGS, '-e', 'process.exit(0)'], { encoding: 'utf8' });
    expect(direct.stderr).toBe('');
    expect(direct.status).toBe(0);
  });

  it('bakes node\'s compile cache with the CMD\'s flags and user, then makes it root\'s and read-only (a start reads it)', () => {
    const lines = runtime.split('\n');
    const at = (line: string) => lines.indexOf(line);
    const dir = runtime.match(/^ENV NODE_COMPILE_CACHE=(\/var\/cache\/\S+)$/m)?.[1];
    expect(dir).toBeDefined();
    // the same V8 flags as the CMD, after NODE_OPTIONS is set: node keys its cache by the flags
    const bake = at(`RUN node ${APP_V8_FLAGS.join(' ')} dist/apps/\${APP}/main.js --prepare-compile-cache`);
    expect(bake).toBeGreaterThan(at(`ENV NODE_OPTIONS="${APP_NODE_FLAGS.join(' ')}"`));
    expect(bake).toBeGreaterThan(at(`ENV NODE_COMPILE_CACHE=${dir}`));
    // as the user the CMD runs as: node keys it by uid too
    const userAt = (line: number) => lines.slice(0, line).filter((l) => l.startsWith('USER ')).pop();
    expect(userAt(bake)).toBe('USER 1000:1000');
    expect(userAt(lines.findIndex((l) => l.startsWith('CMD ')))).toBe('USER 1000:1000');
    // then root's, readable and not writable by the app: a compromised process cannot change code a later start runs
    const seal = at('RUN chown -R 0:0 "$NODE_COMPILE_CACHE" && chmod -R a+rX,go-w "$NODE_COMPILE_CACHE"');
    expect(seal).toBeGreaterThan(bake);
    expect(userAt(seal)).toBe('USER 0:0');
  });

  it('the local mesh starts an app with the image\'s flags and no others (no source maps) unless MESH_NODE_ARGS adds some', () => {
    expect(appNodeArgs('crm', undefined)).toEqual([...APP_NODE_FLAGS, ...APP_V8_FLAGS, appEntry('crm')]);
    expect(appNodeArgs('crm', '')).not.toContain('--enable-source-maps');
    expect(appNodeArgs('crm', ' --enable-source-maps  --cpu-prof ')).toEqual([...APP_NODE_FLAGS, ...APP_V8_FLAGS, '--enable-source-maps', '--cpu-prof', appEntry('crm')]);
  });
});
