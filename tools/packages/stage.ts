import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, runToEnd } from '../mesh/processes';

/**
 * The integrator's packages as npm publishes them: packages/client (`@lead-intelligence/client`)
 * and packages/cli (`@lead-intelligence/cli`, the `lim` command), each compiled by its own
 * tsconfig into a folder of its own with its package.json and README. The client's one runtime
 * dependency (openapi-fetch, and what it needs) travels inside its tarball (`bundleDependencies`),
 * so installing both tarballs needs no registry. The packages' own folders are not written (a
 * package's `npm run build` writes its own dist/).
 */
export const PACKAGES = {
  client: { dir: join(ROOT, 'packages', 'client'), name: '@lead-intelligence/client' },
  cli: { dir: join(ROOT, 'packages', 'cli'), name: '@lead-intelligence/cli' },
} as const;

/** The staged package folders. */
export interface StagedPackages {
  client: string;
  cli: string;
}

async function tsc(project: string): Promise<void> {
  const result = await runToEnd(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { cwd: ROOT });
  if (result.status !== 0) throw new Error(`tsc -p ${project} failed:\n${result.stdout}${result.stderr}`);
}

/** Compiles a package's src/ into `out`/dist with its own tsconfig, `paths` as given. */
async function compile(pkg: string, out: string, paths: Record<string, string[]> = {}): Promise<void> {
  const config = join(out, 'tsconfig.stage.json');
  writeFileSync(config, JSON.stringify({
    extends: join(pkg, 'tsconfig.json'),
    compilerOptions: { outDir: join(out, 'dist'), rootDir: join(pkg, 'src'), typeRoots: [join(ROOT, 'node_modules', '@types')], paths },
    include: [join(pkg, 'src')],
  }));
  try {
    await tsc(config);
  } finally {
    rmSync(config, { force: true });
  }
}

/** The installed folder of `name` in the repository's node_modules, with its own dependencies, copied under `into`/node_modules. */
function bundle(name: string, into: string): void {
  const target = join(into, 'node_modules', name);
  if (existsSync(target)) return;
  const source = join(ROOT, 'node_modules', name);
  cpSync(source, target, { recursive: true, dereference: true });
  const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const dependency of Object.keys(manifest.dependencies ?? {})) bundle(dependency, into);
}

/** Where stagePackages puts both packages under `out`. */
function stagedUnder(out: string): StagedPackages {
  return { client: join(out, 'client'), cli: join(out, 'cli') };
}

/** Both packages staged under `out` (`out`/client, `out`/cli), ready to pack or to run as installed. */
export async function stagePackages(out: string): Promise<StagedPackages> {
  const staged = stagedUnder(out);
  for (const dir of Object.values(staged)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  await compile(PACKAGES.client.dir, staged.client);
  // the generated types the declarations import, beside them
  cpSync(join(PACKAGES.client.dir, 'src', 'api.d.ts'), join(staged.client, 'dist', 'api.d.ts'));
  const clientManifest = JSON.parse(readFileSync(join(PACKAGES.client.dir, 'package.json'), 'utf8')) as { bundleDependencies?: string[] };
  for (const name of clientManifest.bundleDependencies ?? []) bundle(name, staged.client);
  await compile(PACKAGES.cli.dir, staged.cli, { '@lead-intelligence/client': [join(staged.client, 'dist', 'index.d.ts')] });
  for (const [name, dir] of Object.entries(staged)) {
    const source = PACKAGES[name as keyof StagedPackages].dir;
    for (const file of ['package.json', 'README.md']) cpSync(join(source, file), join(dir, file));
  }
  return staged;
}

/**
 * Where stagings are kept: in the repository's own `.data/` (git-ignored, the user's), not the
 * system's temporary folder, which any local user may write into first: `npm run packages:pack`
 * packs what it finds there, so a folder someone else made would be published as ours.
 */
export const STAGINGS_DIR = join(ROOT, '.data', 'staged-packages');

/**
 * The SHA-256 of everything a staging is made of: the packages' sources, manifests, READMEs and
 * tsconfigs, this staging code, and package-lock.json (the compiler, the types and the bundled
 * dependency, all installed by it). Another source is another hash.
 */
export function stagingHash(): string {
  const hash = createHash('sha256');
  const add = (file: string) => {
    hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  };
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) add(path);
    }
  };
  for (const { dir } of Object.values(PACKAGES)) {
    for (const file of ['package.json', 'README.md', 'tsconfig.json']) add(join(dir, file));
    walk(join(dir, 'src'));
  }
  add(join(ROOT, 'tools', 'packages', 'stage.ts'));
  add(join(ROOT, 'package-lock.json'));
  return hash.digest('hex').slice(0, 32);
}

/** A staging kept under STAGINGS_DIR: its folder, and the packages as installed in it. */
export interface Staging {
  dir: string;
  packages: StagedPackages;
}

/**
 * Both packages staged as the sources are now, made once and kept (two tsc compiles are most of
 * `npm run packages:pack`, of the quickstart's pack step and of the tests that run `lim`): under
 * STAGINGS_DIR by `stagingHash()`, so a staging never serves other sources. The layout is an
 * installed one, `<dir>/node_modules/@lead-intelligence/{client,cli}`, so `lim` run from `<dir>`
 * resolves the client from nothing but what was staged. A caller that finds none stages into a
 * folder of its own and renames it into place (atomic: two stagings at once both finish, the first
 * rename wins, the second is dropped). Nobody writes into a kept staging: `npm pack` only reads.
 */
export async function stagedPackages(): Promise<Staging> {
  const dir = join(STAGINGS_DIR, stagingHash());
  const scope = (root: string) => join(root, 'node_modules', '@lead-intelligence');
  if (!existsSync(dir)) {
    const building = `${dir}.${process.pid}.${Date.now()}`;
    try {
      await stagePackages(scope(building));
      try {
        renameSync(building, dir);
      } catch (err) {
        // another caller renamed its staging of the same sources into place first
        if (!existsSync(dir)) throw err;
      }
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
    // the stagings of earlier sources are never used again
    for (const name of readdirSync(STAGINGS_DIR)) {
      if (/^[0-9a-f]{32}$/.test(name) && join(STAGINGS_DIR, name) !== dir) rmSync(join(STAGINGS_DIR, name), { recursive: true, force: true });
    }
  }
  return { dir, packages: stagedUnder(scope(dir)) };
}

/** `npm pack` of each staged package into `destination`, both at once; the tarballs' paths. */
export async function packPackages(staged: StagedPackages, destination: string): Promise<StagedPackages> {
  mkdirSync(destination, { recursive: true });
  const pack = async (dir: string): Promise<string> => {
    const packed = await runToEnd('npm', ['pack', '--json', '--pack-destination', destination], { cwd: dir, env: { ...process.env, npm_config_update_notifier: 'false' } });
    if (packed.status !== 0) throw new Error(`npm pack in ${dir} failed:\n${packed.stdout}${packed.stderr}`);
    const [{ filename }] = JSON.parse(packed.stdout) as { filename: string }[];
    return join(destination, filename);
  };
  const [client, cli] = await Promise.all([pack(staged.client), pack(staged.cli)]);
  return { client, cli };
}
