import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** Both packages staged under `out` (`out`/client, `out`/cli), ready to pack or to run as installed. */
export async function stagePackages(out: string): Promise<StagedPackages> {
  const staged = { client: join(out, 'client'), cli: join(out, 'cli') };
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
