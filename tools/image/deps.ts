import { builtinModules } from 'node:module';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, copyFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { SERVICE_NAMES, ServiceName } from '@app/contracts';
import type { Metafile } from 'esbuild';

/**
 * What one service's image holds: the service's bundle (`dist/apps/<service>/main.js`, made by
 * tools/build/bundle.ts, which the image runs), the compiled files its other entry points reach
 * (the migration entry `dist/tools/migrate.js <service>`; in the gateway's also the admin CLI and
 * `dist/tools/nats-setup.js`) and the production packages those require, with the packages those
 * need as the lockfile resolves them. The bundle's packages are read from its metafile (what it
 * requires at run time; what it holds must be production packages), the other entries' from the
 * compiled import graph, so a package the code starts to use is in the image without a list to
 * keep; a require this cannot follow (not a string literal) fails the build instead.
 *
 *   node dist/tools/image/deps.js <service> <to dir> [--from <dir with dist/ and node_modules/>]
 *
 * copies them into <to dir> (the Dockerfile's per-service stage), and prints what it copied.
 */

export interface ImageContents {
  /** Compiled files under dist/, relative to the root. */
  files: string[];
  /** Production packages the files require, by name. */
  packages: string[];
  /** Lockfile keys (node_modules/…) of those packages and everything they need. */
  modules: string[];
  /** Those among them npm may have left out (optional, e.g. for another platform). */
  optional: string[];
  /** Lockfile keys of the packages whose code the service's bundle holds (not copied: inside dist/apps/<service>/main.js). */
  bundled: string[];
}

const REQUIRE = /\brequire\(\s*(?:(["'])([^"'\n]+)\1\s*\)|([^)"'\s][^)]*)\))/g;
/**
 * A file of a package asked for by its path (`require.resolve('redoc/bundles/….js')`: served, not
 * run): the image holds that package alone, without what it would need to run.
 */
const RESOLVE = /\brequire\.resolve\(\s*(["'])([^"'\n]+)\1\s*\)/g;
const BUILTIN = new Set(builtinModules);

/** The admin CLI's entry point. */
export const ADMIN_ENTRY = 'dist/apps/admin/src/main.js';
/** The bus's configuration and identities of a container deployment (tools/nats-setup.ts; compose's `nats-config` step). */
export const NATS_SETUP_ENTRY = 'dist/tools/nats-setup.js';

/** The migration modules of every service: tools/migrate.js loads only the one it migrates. */
const MIGRATIONS = /^dist\/apps\/([a-z]+)\/src\/migrations\/index\.js$/;

function resolveFile(path: string): string | undefined {
  for (const candidate of [path, `${path}.js`, `${path}.json`, join(path, 'index.js')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The files and packages one service's image needs, from the compiled code under root/dist. */
export function imageContents(root: string, service: ServiceName): ImageContents {
  if (!SERVICE_NAMES.includes(service)) throw new Error(`unknown service "${service}" (one of ${SERVICE_NAMES.join(', ')})`);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const production = new Set(Object.keys(pkg.dependencies ?? {}));
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  // the admin CLI rides in the gateway's image, where docs/operations.md runs it in the cluster, and
  // so does the NATS set-up step docker-compose.yml runs before the bus starts
  const bundle = `dist/apps/${service}/main.js`;
  const entries = [bundle, 'dist/tools/migrate.js', ...(service === 'gateway' ? [ADMIN_ENTRY, NATS_SETUP_ENTRY] : [])];
  const files = new Set<string>();
  const packages = new Set<string>();
  const filesOnly = new Set<string>();
  const problems: string[] = [];
  const queue = entries.filter((entry) => entry !== bundle);
  for (const entry of entries) if (!existsSync(join(root, entry))) problems.push(`${entry}: missing (build first)`);
  let bundled: string[] = [];
  if (existsSync(join(root, bundle))) {
    files.add(bundle);
    const found = bundleDependencies(root, bundle, production, lock);
    problems.push(...found.problems);
    for (const name of found.packages) packages.add(name);
    for (const name of found.filesOnly) filesOnly.add(name);
    bundled = found.held;
  }
  while (queue.length) {
    const file = queue.shift()!;
    if (files.has(file) || !existsSync(join(root, file))) continue;
    files.add(file);
    if (!file.endsWith('.js')) continue;
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(RESOLVE)) {
      const name = packageName(match[2]);
      if (match[2].startsWith('.') || match[2].startsWith('node:')) continue;
      if (!production.has(name)) problems.push(`${file}: resolves a file of ${name}, which is not in package.json's dependencies`);
      else filesOnly.add(name);
    }
    for (const match of text.matchAll(REQUIRE)) {
      const specifier = match[2];
      if (specifier === undefined) {
        problems.push(`${file}: require(${match[3].trim()}) is not a string literal; the image cannot tell what it loads`);
        continue;
      }
      if (specifier.startsWith('node:') || BUILTIN.has(specifier)) continue;
      if (specifier.startsWith('.')) {
        const target = resolveFile(resolve(join(root, dirname(file)), specifier));
        if (!target) {
          problems.push(`${file}: require('${specifier}') resolves to no file`);
          continue;
        }
        const rel = relative(root, target).split('\\').join('/');
        const migrations = file === 'dist/tools/migrate.js' && MIGRATIONS.exec(rel);
        if (migrations && migrations[1] !== service) continue;
        if (!rel.startsWith('dist/')) problems.push(`${file}: require('${specifier}') leaves dist/ (${rel})`);
        else queue.push(rel);
        continue;
      }
      const name = packageName(specifier);
      if (!production.has(name)) problems.push(`${file}: requires ${name}, which is not in package.json's dependencies`);
      else packages.add(name);
    }
  }
  if (problems.length) throw new Error(`${service} image:\n  ${problems.join('\n  ')}`);
  const modules = [...new Set([...lockfileClosure(root, [...packages]), ...[...filesOnly].map((name) => `node_modules/${name}`)])].sort();
  return { files: [...files].sort(), packages: [...packages].sort(), modules, optional: modules.filter((key) => lock.packages[key].optional), bundled };
}

/**
 * What a service's bundle needs from node_modules: the packages it requires at run time (its
 * metafile's external imports, `<bundle minus .js>.meta.json`; those not installed are optional
 * ones asked for only when configured, and stay out as they stay out of node_modules), and the
 * packages whose files it reads by path (`require.resolve('redoc/…')`). Every package the bundle
 * holds must be a production package: a dev package the code imports fails the build, as a
 * require of one does in the compiled graph.
 */
function bundleDependencies(root: string, bundle: string, production: Set<string>, lock: { packages: Record<string, { dev?: boolean }> }): { packages: string[]; filesOnly: string[]; held: string[]; problems: string[] } {
  const problems: string[] = [];
  const metaFile = join(root, bundle.replace(/\.js$/, '.meta.json'));
  if (!existsSync(metaFile)) return { packages: [], filesOnly: [], held: [], problems: [`${bundle}: no metafile beside it (${relative(root, metaFile)}; build first)`] };
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Metafile;
  const packages = new Set<string>();
  for (const output of Object.values(meta.outputs)) {
    for (const imported of output.imports) {
      // `require.resolve` asks for a file's path, not its package's code (filesOnly, below)
      if (!imported.external || imported.kind === 'require-resolve' || imported.path.startsWith('node:') || BUILTIN.has(imported.path) || imported.path.startsWith('.')) continue;
      const name = packageName(imported.path);
      if (!existsSync(join(root, 'node_modules', name, 'package.json'))) continue;
      if (!lock.packages[`node_modules/${name}`] || lock.packages[`node_modules/${name}`].dev) problems.push(`${bundle}: requires ${name}, which is not a production package`);
      else packages.add(name);
    }
  }
  const held = bundledModules(meta);
  for (const key of held) if (!lock.packages[key] || lock.packages[key].dev) problems.push(`${bundle}: holds ${key.replace(/^.*node_modules\//, '')}, which is not a production package`);
  const filesOnly = new Set<string>();
  for (const match of readFileSync(join(root, bundle), 'utf8').matchAll(RESOLVE)) {
    if (match[2].startsWith('.') || match[2].startsWith('node:')) continue;
    const name = packageName(match[2]);
    if (!production.has(name)) problems.push(`${bundle}: resolves a file of ${name}, which is not in package.json's dependencies`);
    else filesOnly.add(name);
  }
  return { packages: [...packages], filesOnly: [...filesOnly], held, problems };
}

/** The lockfile keys (node_modules/…) of the packages whose files a bundle holds (its metafile's inputs), sorted. */
export function bundledModules(meta: Metafile): string[] {
  const held = new Set<string>();
  for (const input of Object.keys(meta.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) held.add(match[1]);
  }
  return [...held].sort();
}

/**
 * The lockfile keys of packages and of everything they need, resolved as node does: from the
 * requiring package's own node_modules up to the root's.
 */
export function lockfileClosure(root: string, names: string[]): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const entries: Record<string, { dev?: boolean; devOptional?: boolean; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> }> = lock.packages;
  // `devOptional`: installed only because a dev package needs it, or as some production package's
  // optional peer (typescript for @nestjs/swagger); `npm ci --omit=dev` leaves it out, so an
  // optional edge never takes it into an image
  const find = (from: string, name: string, optional: boolean): string | undefined => {
    let base = from;
    for (;;) {
      const key = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
      if (entries[key] && !entries[key].dev && !(optional && entries[key].devOptional)) return key;
      if (!base) return undefined;
      const cut = base.lastIndexOf('/node_modules/');
      base = cut < 0 ? '' : base.slice(0, cut);
    }
  };
  const closure = new Set<string>();
  const visit = (from: string, name: string, optional: boolean) => {
    const key = find(from, name, optional);
    if (!key) {
      if (!optional) throw new Error(`package-lock.json: ${name} (needed by ${from || 'the service'}) is not a production package`);
      return;
    }
    if (closure.has(key)) return;
    closure.add(key);
    const entry = entries[key];
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(key, dep, false);
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) visit(key, dep, true);
    for (const dep of Object.keys(entry.peerDependencies ?? {})) visit(key, dep, entry.peerDependenciesMeta?.[dep]?.optional ?? false);
  };
  for (const name of names) visit('', name, false);
  return [...closure].sort();
}

/** Copies (or hard-links) one directory's files, without its nested node_modules. */
function copyTree(from: string, to: string, link: boolean, top = true): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (top && e.name === 'node_modules') continue;
    const source = join(from, e.name);
    if (e.isDirectory()) copyTree(source, join(to, e.name), link, false);
    else if (e.isFile()) (link ? linkSync : copyFileSync)(source, join(to, e.name));
  }
}

/** Writes the image's files under `to`: dist files, and node_modules from `modulesRoot`. */
export function assembleImage(contents: ImageContents, from: string, to: string, options: { modulesRoot?: string; link?: boolean } = {}): void {
  const link = options.link ?? false;
  for (const file of contents.files) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    (link ? linkSync : copyFileSync)(join(from, file), join(to, file));
  }
  const optional = new Set(contents.optional);
  for (const key of contents.modules) {
    const source = join(options.modulesRoot ?? from, key);
    if (!existsSync(source) && optional.has(key)) continue;
    copyTree(source, join(to, key), link);
  }
}

if (require.main === module) {
  const [service, to, ...rest] = process.argv.slice(2);
  const fromAt = rest.indexOf('--from');
  const from = resolve(fromAt >= 0 ? rest[fromAt + 1] : process.cwd());
  const modulesAt = rest.indexOf('--modules');
  if (!service || !to) {
    process.stderr.write('usage: node dist/tools/image/deps.js <service> <to dir> [--from <root>] [--modules <root of the production node_modules>]\n');
    process.exit(2);
  }
  try {
    const contents = imageContents(from, service as ServiceName);
    assembleImage(contents, from, resolve(to), { modulesRoot: modulesAt >= 0 ? resolve(rest[modulesAt + 1]) : from });
    process.stdout.write(`${JSON.stringify({ service, files: contents.files.length, packages: contents.packages, modules: contents.modules.length })}\n`);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}
