import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SERVICE_NAMES } from '@app/contracts';
import { DEFAULT_HTTP_PORTS } from '@app/platform/config';
import { APP_NODE_FLAGS, APP_V8_FLAGS } from '../../tools/mesh/processes';

/**
 * docker-compose.yml: `docker compose config` where the compose plugin exists; everywhere, the
 * structure the mesh needs (there is no Docker engine in CI to run it).
 */

const ROOT = join(__dirname, '..', '..');
const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
// Compose files use YAML 1.1 merge keys (<<: *anchor).
const compose = parse(text, { merge: true, maxAliasCount: 1000 }) as Record<string, any>;
const services: Record<string, any> = compose.services;
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
      for (const volume of svc.volumes ?? []) {
        const source = String(volume).split(':')[0];
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
    expect(services.crm.volumes).toEqual(services.gateway.volumes);
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
    expect(runtime).toMatch(/^CMD exec node (--[a-z0-9=-]+ )*dist\/apps\/\$\{APP\}\/src\/main\.js$/m);
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
    expect(runtime).toContain(`\nCMD exec node ${APP_V8_FLAGS.join(' ')} dist/apps/\${APP}/src/main.js\n`);
    const direct = spawnSync(process.execPath, [...APP_V8_FLAGS, '-e', 'process.exit(0)'], { encoding: 'utf8' });
    expect(direct.stderr).toBe('');
    expect(direct.status).toBe(0);
  });
});
