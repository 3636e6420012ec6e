import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { SERVICE_NAMES, type ServiceName } from '@app/contracts/subjects';
import { assembleImage, imageContents, ImageContents } from '../../tools/image/deps';
import { APP_NODE_FLAGS, APP_V8_FLAGS, freePort, httpReady, portVariable, ROOT, stopApp, waitFor } from '../../tools/mesh/processes';
import { HARNESS, meshHookTimeoutMs, TestMesh } from '../harness';

/**
 * One image per service (Dockerfile, `image` stage: tools/image/deps.ts). With no Docker engine
 * here, the test assembles each image's /app the way that stage does, from the built dist/ and
 * the installed packages, in a directory outside the repository (so node cannot fall back to the
 * repository's node_modules), and runs the service's migration entry and the service from it
 * against a real PostgreSQL and NATS: what an image holds is enough, and it holds no more.
 */
describe('per-service images: only the service\'s code and production packages, and enough to run it', () => {
  let mesh: TestMesh;
  let dir: string;
  const contents = new Map<ServiceName, ImageContents>();
  beforeAll(async () => {
    expect(existsSync(join(ROOT, 'dist/tools/migrate.js'))).toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'lim-images-'));
    for (const service of SERVICE_NAMES) {
      const found = imageContents(ROOT, service);
      contents.set(service, found);
      assembleImage(found, ROOT, join(dir, service), { link: true });
      for (const file of ['package.json', 'nest-cli.json']) copyFileSync(join(ROOT, file), join(dir, service, file));
    }
    mesh = await TestMesh.start([]);
  }, meshHookTimeoutMs(0)); // the six images assembled, and a mesh of no apps
  afterAll(async () => {
    await mesh?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // a package is in an image as a folder of node_modules, or inside the service's bundle
  // (tools/build/bundle.ts); `bundled` are the lockfile keys of the packages the bundle holds
  const modulesOf = (service: ServiceName) => [...contents.get(service)!.modules, ...contents.get(service)!.bundled];
  const packagesOf = (service: ServiceName) => [...contents.get(service)!.packages, ...contents.get(service)!.bundled.map((key) => key.replace(/^.*node_modules\//, ''))];

  it('sequences\' holiday data is in the sequences image only; mail packages in sequences only; no dev package anywhere', () => {
    for (const service of SERVICE_NAMES) {
      const names = packagesOf(service);
      expect({ service, holidays: modulesOf(service).some((k) => k.endsWith('/date-holidays')) }).toEqual({ service, holidays: service === 'sequences' });
      expect({ service, mail: names.filter((n) => ['nodemailer', 'imapflow', 'mailparser'].includes(n)).length > 0 }).toEqual({ service, mail: service === 'sequences' });
      for (const dev of ['jest', 'typescript', '@swc/core', 'playwright-core', 'autocannon', 'kubernetes-models', 'yaml', 'esbuild']) {
        expect({ service, dev, present: modulesOf(service).includes(`node_modules/${dev}`) }).toEqual({ service, dev, present: false });
      }
    }
    expect(modulesOf('gateway').length).toBeLessThan(modulesOf('sequences').length);
  });

  it('each image holds its own service\'s code, no other service\'s (migrations included), and no tests, benches or dev tools', () => {
    for (const service of SERVICE_NAMES) {
      const files = contents.get(service)!.files;
      expect(files).toEqual(expect.arrayContaining([`dist/apps/${service}/main.js`, `dist/apps/${service}/src/migrations/index.js`, 'dist/tools/migrate.js']));
      // the admin CLI rides in the gateway's image (docs/operations.md runs it from there)
      const own = (f: string) => f.startsWith(`dist/apps/${service}/`) || (service === 'gateway' && f.startsWith('dist/apps/admin/'));
      const foreign = files.filter((f) => f.startsWith('dist/apps/') && !own(f));
      expect({ service, foreign }).toEqual({ service, foreign: [] });
      const dev = files.filter((f) => /(\.spec|-spec)\.js$|\.map$|\.meta\.json$|^dist\/tools\/(bench|mesh|lockfile|image|build)\//.test(f));
      expect({ service, dev }).toEqual({ service, dev: [] });
    }
  });

  it('the build fails on a package the code requires that is not a production dependency, and on a require it cannot follow', () => {
    const root = mkdtempSync(join(tmpdir(), 'lim-image-deps-'));
    try {
      copyFileSync(join(ROOT, 'package-lock.json'), join(root, 'package-lock.json'));
      writeFileSync(join(root, 'package.json'), JSON.stringify({ dependencies: { pg: '8.23.1' }, devDependencies: { jest: '30.5.2' } }));
      mkdirSync(join(root, 'dist/apps/crm/src'), { recursive: true });
      mkdirSync(join(root, 'dist/tools'), { recursive: true });
      mkdirSync(join(root, 'node_modules/pg'), { recursive: true });
      writeFileSync(join(root, 'node_modules/pg/package.json'), '{"name":"pg"}');
      // the service's bundle and its metafile (tools/build/bundle.ts): it requires pg at run time
      const meta = (inputs: string[], requires: string[]) => JSON.stringify({
        inputs: Object.fromEntries(inputs.map((input) => [input, { bytes: 1, imports: [] }])),
        outputs: { 'dist/apps/crm/main.js': { bytes: 1, inputs: {}, exports: [], imports: requires.map((path) => ({ path, kind: 'require-call', external: true })) } },
      });
      writeFileSync(join(root, 'dist/apps/crm/main.js'), 'require("pg");\n');
      writeFileSync(join(root, 'dist/apps/crm/main.meta.json'), meta(['dist/apps/crm/src/main.js'], ['pg']));
      // the migration entry's compiled graph
      writeFileSync(join(root, 'dist/tools/migrate.js'), 'require("pg"); require("../apps/crm/src/lazy");\n');
      writeFileSync(join(root, 'dist/apps/crm/src/lazy.js'), 'const jest = require(\'jest\');\n');
      expect(() => imageContents(root, 'crm')).toThrow(/lazy\.js: requires jest, which is not in package\.json's dependencies/);
      writeFileSync(join(root, 'dist/apps/crm/src/lazy.js'), 'const name = "pg"; require(name);\n');
      expect(() => imageContents(root, 'crm')).toThrow(/require\(name\) is not a string literal/);
      writeFileSync(join(root, 'dist/apps/crm/src/lazy.js'), 'module.exports = require("pg");\n');
      expect(imageContents(root, 'crm').packages).toEqual(['pg']);
      // a bundle that holds a dev package, or requires one, fails too
      writeFileSync(join(root, 'dist/apps/crm/main.meta.json'), meta(['dist/apps/crm/src/main.js', 'node_modules/jest/build/index.js'], ['pg']));
      expect(() => imageContents(root, 'crm')).toThrow(/main\.js: holds jest, which is not a production package/);
      mkdirSync(join(root, 'node_modules/jest'), { recursive: true });
      writeFileSync(join(root, 'node_modules/jest/package.json'), '{"name":"jest"}');
      writeFileSync(join(root, 'dist/apps/crm/main.meta.json'), meta(['dist/apps/crm/src/main.js'], ['pg', 'jest']));
      expect(() => imageContents(root, 'crm')).toThrow(/main\.js: requires jest, which is not a production package/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the gateway image runs the admin CLI from its files alone (docs/operations.md runs it there)', () => {
    const help = spawnSync(process.execPath, ['dist/apps/admin/src/main.js', '--help'], { cwd: join(dir, 'gateway'), env: mesh.appEnv('gateway'), encoding: 'utf8' });
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: '' });
    expect(help.stdout).toContain('workspace:create');
  });

  it.each([...SERVICE_NAMES])('%s: the migration entry and the service run from the image\'s files alone', async (service) => {
    const app = join(dir, service);
    expect(existsSync(join(app, 'node_modules/pg'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/jest'))).toBe(false);
    const env = { ...mesh.appEnv(service), WEBHOOK_SECRET_KEY: 'b'.repeat(64) };
    const migrate = spawnSync(process.execPath, ['dist/tools/migrate.js', service], { cwd: app, env, encoding: 'utf8' });
    expect({ status: migrate.status, stderr: migrate.stderr }).toEqual({ status: 0, stderr: '' });

    // the build's step (Dockerfile): the compile cache baked with the image's flags, as NODE_OPTIONS and the CMD give them
    const cache = join(app, 'compile-cache');
    const withCache = typeof nodeModule.getCompileCacheDir === 'function';
    if (withCache) {
      const bake = spawnSync(process.execPath, [...APP_V8_FLAGS, `dist/apps/${service}/main.js`, '--prepare-compile-cache'], {
        cwd: app, env: { ...env, NODE_OPTIONS: APP_NODE_FLAGS.join(' '), NODE_COMPILE_CACHE: cache }, encoding: 'utf8',
      });
      expect({ status: bake.status, written: bake.stderr.startsWith('--prepare-compile-cache: compile cache written to ') }).toEqual({ status: 0, written: true });
    }

    const port = await freePort();
    const log: string[] = [];
    const child = spawn(process.execPath, [...APP_NODE_FLAGS, ...APP_V8_FLAGS, `dist/apps/${service}/main.js`], {
      cwd: app,
      env: { ...env, [portVariable(service)]: String(port), ...(withCache ? { NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => log.push(String(d)));
    child.stderr.on('data', (d) => log.push(String(d)));
    const running = { name: service, port, child, exited: new Promise<number | null>((r) => child.once('exit', (code) => r(code))) };
    try {
      await Promise.race([
        waitFor(`${service} from its image`, () => httpReady(port), HARNESS.readyTimeoutMs),
        running.exited.then((code) => Promise.reject(new Error(`${service} exited with ${code}:\n${log.join('').slice(-3000)}`))),
      ]);
      expect(log.join('')).not.toMatch(/Cannot find module/);
      // the service's bundle was compiled from the baked cache (node's own account, NODE_DEBUG_NATIVE)
      if (withCache) expect(log.join('')).toContain(`V8 code cache for CommonJS ${join(app, 'dist/apps', service, 'main.js')} was accepted`);
      if (service === 'gateway') {
        // the reference page's renderer is read from its package: the image holds it (alone)
        const renderer = await fetch(`http://127.0.0.1:${port}/api/v1/docs/redoc.standalone.js`);
        expect(renderer.status).toBe(200);
        expect((await renderer.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
        expect(existsSync(join(app, 'node_modules/react'))).toBe(false);
      }
    } finally {
      await stopApp(running);
    }
  });
});
