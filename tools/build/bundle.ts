import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, Metafile } from 'esbuild';
import { SERVICE_NAMES, ServiceName } from '@app/contracts/subjects';

/**
 * One file per service: `npm run build` compiles apps, libs and tools with swc into dist/, then
 * this bundles each service's compiled main (`dist/apps/<service>/src/main.js`) with the packages
 * it loads into `dist/apps/<service>/main.js`, the file the image and every local mesh run
 * (appEntry, tools/mesh/processes.ts; the Dockerfile's CMD).
 *
 * Why: a service's start was mostly module loading, and most of that was finding, reading and
 * wrapping about 2,000 files one by one (path resolution, package.json lookups, a compile per
 * file). One file is read once and compiled once (from the compile cache when NODE_COMPILE_CACHE
 * is set). Measured side by side (docs/testing.md, "A service's start"): the six services' CPU
 * from spawn to ready a fifth less.
 *
 * What stays outside the bundle, required from node_modules at run time:
 * - RUNTIME_LOADED and everything they need (their dependencies, installed peers and optional
 *   dependencies, transitively): packages another package loads by name at run time, where a
 *   bundler cannot see it (@nestjs/typeorm's `createRequire(import.meta.url)('typeorm')`, TypeORM
 *   loading `pg`, @nestjs/microservices' NATS client loading `@nats-io/transport-node`). Bundled,
 *   those would exist twice in one process: the bundle's copy and node_modules' copy, with two
 *   `reflect-metadata` registries, two pg modules, two TypeORM DataSource classes. @nestjs/common's
 *   loadPackageSync documents this: applications bundled with esbuild mark such packages external.
 * - packages that are not installed (optional and peer dependencies npm left out, notInstalled:
 *   @nestjs/microservices' other transports, @nestjs/websockets, pg-native): their require stays,
 *   and fails at run time exactly where it failed unbundled. Any other import esbuild cannot
 *   resolve fails the build.
 * - files a package reads by path (`require.resolve('redoc/…')`): left as they are, resolved
 *   from node_modules.
 *
 * `dist/apps/<service>/main.meta.json` is esbuild's metafile: what went in, and which packages
 * the bundle requires (tools/image/deps.ts puts those in the service's image).
 */
export const RUNTIME_LOADED = ['typeorm', 'pg', '@nats-io/transport-node'];

export function bundleEntry(service: ServiceName): string {
  return `dist/apps/${service}/main.js`;
}

export function bundleMetafile(service: ServiceName): string {
  return `dist/apps/${service}/main.meta.json`;
}

/** `names` and every package they need, as installed under root/node_modules (dependencies, optional and peer dependencies that are installed, transitively). */
export function runtimeClosure(root: string, names: readonly string[] = RUNTIME_LOADED): Set<string> {
  const closure = new Set<string>();
  const visit = (name: string) => {
    if (closure.has(name)) return;
    const manifest = join(root, 'node_modules', name, 'package.json');
    if (!existsSync(manifest)) return; // an optional or peer package that is not installed
    closure.add(name);
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, Record<string, string> | undefined>;
    // peerDependenciesMeta too: debug's optional supports-color is named only there, and debug requires it when installed
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta']) for (const dep of Object.keys(pkg[field] ?? {})) visit(dep);
  };
  for (const name of names) visit(name);
  return closure;
}

/**
 * Packages some installed package may ask for but that are not installed: the optional and peer
 * dependencies npm left out (@nestjs/microservices' other transports, pg's pg-native, ...). They
 * stay require calls in the bundle and fail at run time where they fail unbundled: only when the
 * code that asks for them runs (a transport not configured never does).
 */
export function notInstalled(root: string): Set<string> {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, unknown> }>;
  };
  const missing = new Set<string>();
  for (const entry of Object.values(lock.packages)) {
    for (const deps of [entry.optionalDependencies, entry.peerDependencies, entry.peerDependenciesMeta]) {
      for (const name of Object.keys(deps ?? {})) if (!existsSync(join(root, 'node_modules', name, 'package.json'))) missing.add(name);
    }
  }
  return missing;
}

/** esbuild's `external`: each package and its subpaths. */
function externalPatterns(names: Iterable<string>): string[] {
  return [...names].flatMap((name) => [name, `${name}/*`]);
}

export async function bundleService(root: string, service: ServiceName, external: readonly string[] = externalPatterns([...runtimeClosure(root), ...notInstalled(root)])): Promise<Metafile> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [`dist/apps/${service}/src/main.js`],
    outfile: bundleEntry(service),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // class and function names as compiled (Nest's logs and errors, TypeORM's metadata read them):
    // without it esbuild renames a symbol that collides across the bundle (it does with some of
    // ours: `describe`, `merge`, `resolve`), and a renaming-free bundle is not something esbuild
    // promises (evanw/esbuild#3572). Its cost: a `__name` call (Object.defineProperty) for every
    // named function, renamed or not, each time it is made; Fastify's hook runners make three
    // closures a hook a request, so about 4 % of the gateway's CPU a served search page went there
    // (docs/benchmarks.md, 2026-12-02 16:00). evanw/esbuild#2605 (PR #4412, open) would write the
    // call only where the name changed.
    keepNames: true,
    // swc's source maps are followed: MESH_NODE_ARGS=--enable-source-maps names the TypeScript's lines
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'error',
    // the ES module packages' `import.meta.url` (createRequire bases): this file's own URL
    define: { 'import.meta.url': '__lim_import_meta_url' },
    banner: { js: 'const __lim_import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
    external: [...external],
  });
  writeFileSync(join(root, bundleMetafile(service)), JSON.stringify(result.metafile));
  return result.metafile;
}

async function main(): Promise<void> {
  const root = join(__dirname, '..', '..', '..');
  const external = externalPatterns([...runtimeClosure(root), ...notInstalled(root)]);
  await Promise.all(SERVICE_NAMES.map((service) => bundleService(root, service, external)));
}

if (require.main === module) {
  main().catch((err: Error) => {
    process.stderr.write(`bundle: ${err.message}\n`);
    process.exit(1);
  });
}
