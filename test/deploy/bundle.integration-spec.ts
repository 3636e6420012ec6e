import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { SERVICE_NAMES } from '@app/contracts/subjects';
import { bundleMetafile, runtimeClosure } from '../../tools/build/bundle';
import { bundledModules, packageName } from '../../tools/image/deps';
import { APP_NODE_FLAGS, APP_V8_FLAGS, appEntry, ROOT } from '../../tools/mesh/processes';

/**
 * Each service runs as one bundle (tools/build/bundle.ts). What must hold: no package exists twice
 * in a process, once inside the bundle and once loaded from node_modules by a package that asks
 * for it by name at run time (@nestjs/typeorm's createRequire of typeorm, TypeORM's load of pg).
 * Each bundle is started with a PostgreSQL and a NATS that do not answer: it loads its modules,
 * TypeORM's driver included, fails its start, and the files it loaded are compared with what the
 * bundle holds.
 */
describe('service bundles', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lim-bundle-'));
    writeFileSync(join(dir, 'loaded.js'), "process.on('exit', () => require('fs').writeFileSync(process.env.LOADED_OUT, JSON.stringify(Object.keys(require.cache))));\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const external = runtimeClosure(ROOT);
  /** The package of a path under node_modules (its innermost), or undefined outside it. */
  const packageAt = (path: string): string | undefined => {
    const at = path.lastIndexOf('node_modules/');
    return at < 0 ? undefined : packageName(path.slice(at + 'node_modules/'.length));
  };

  it.each([...SERVICE_NAMES])('%s: loads from node_modules only the packages kept outside its bundle, none of those it holds', (service) => {
    const meta = JSON.parse(readFileSync(join(ROOT, bundleMetafile(service)), 'utf8')) as Metafile;
    const held = bundledModules(meta).map((key) => packageAt(key) as string); // lockfile keys: each under node_modules
    expect(held.length).toBeGreaterThan(50);
    expect(held.filter((name) => external.has(name))).toEqual([]);

    const out = join(dir, `${service}.json`);
    const run = spawnSync(process.execPath, ['-r', join(dir, 'loaded.js'), appEntry(service)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', NATS_URL: 'nats://127.0.0.1:1', LOADED_OUT: out, WEBHOOK_SECRET_KEY: 'b'.repeat(64), LOG_LEVEL: 'fatal' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    // it got as far as connecting: every module loaded, the service's own start then failed
    expect({ status: run.status, stderr: run.stderr.includes('Cannot find module') }).toEqual({ status: 1, stderr: false });
    const fromModules = new Set<string>();
    for (const file of JSON.parse(readFileSync(out, 'utf8')) as string[]) {
      const name = packageAt(file);
      if (name) fromModules.add(name);
    }
    expect(fromModules.has('typeorm')).toBe(true);
    expect(fromModules.has('pg')).toBe(true);
    expect([...fromModules].filter((name) => held.includes(name))).toEqual([]);
    expect([...fromModules].filter((name) => !external.has(name))).toEqual([]);
  });

  // the image's build runs this (Dockerfile): the bundle loaded with the CMD's flags, its compile cache written, no start
  const hasCompileCache = typeof nodeModule.getCompileCacheDir === 'function';
  (hasCompileCache ? it : it.skip)('--prepare-compile-cache writes the cache a later start reads, without starting; without a cache it fails the build', () => {
    const cache = join(dir, 'compile-cache');
    const env = { PATH: process.env.PATH, NODE_OPTIONS: APP_NODE_FLAGS.join(' '), DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', NATS_URL: 'nats://127.0.0.1:1', WEBHOOK_SECRET_KEY: 'b'.repeat(64) };
    const node = (args: string[], extra: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, [...APP_V8_FLAGS, appEntry('crm'), ...args], { cwd: ROOT, env: { ...env, ...extra }, encoding: 'utf8', timeout: 60_000 });

    const without = node(['--prepare-compile-cache'], {});
    expect(without.status).toBe(1);
    expect(without.stderr).toContain('no compile cache is enabled (set NODE_COMPILE_CACHE');

    const bake = node(['--prepare-compile-cache'], { NODE_COMPILE_CACHE: cache });
    // it wrote the cache and exited 0 at once: it never got to its (unreachable) database
    expect({ status: bake.status, stdout: bake.stdout }).toEqual({ status: 0, stdout: '' });
    expect(bake.stderr).toBe(`--prepare-compile-cache: compile cache written to ${readdirSync(cache).map((tag) => join(cache, tag))[0]}\n`);
    // a start with the same flags reads the bundle's code from it (node's own account, NODE_DEBUG_NATIVE)
    const start = node([], { NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: 'COMPILE_CACHE', LOG_LEVEL: 'fatal' });
    expect(start.status).toBe(1); // its start failed on the database that does not answer
    expect(start.stderr).toContain(`V8 code cache for CommonJS ${appEntry('crm')} was accepted`);
  });
});
