import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT } from '../../tools/mesh/processes';
import { PACKAGES, StagedPackages, stagePackages } from '../../tools/packages/stage';

/**
 * packages/client and packages/cli staged as npm publishes them (tools/packages/stage.ts: each
 * compiled by tsc with its own tsconfig, the client's dependency bundled), once for every file that
 * needs them: lim-cli runs `lim` from them, packages-install packs them. Two compiles are most of a
 * staging (about 4 s of CPU on a quiet machine, 51 s at load 24), so the result is kept in the
 * system's temporary folder under the SHA-256 of everything it is made of: the packages' sources,
 * manifests, READMEs and tsconfigs, the staging code, and package-lock.json (the compiler and the
 * bundled dependency). Another source is another folder, so a staging never serves other code; a
 * file that finds none stages into a folder of its own and renames it into place (atomic: two
 * files staging at once both finish, the first rename wins, the second is dropped).
 *
 * The layout is an installed one, `<dir>/node_modules/@lead-intelligence/{client,cli}`, so `lim`
 * run from `<dir>` resolves the client as an integrator's would, from nothing but what was staged.
 * Nobody writes into it: `npm pack` only reads a package folder.
 */
export interface Staging {
  dir: string;
  packages: StagedPackages;
}

function sourcesHash(): string {
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

function layout(dir: string): StagedPackages {
  const scope = join(dir, 'node_modules', '@lead-intelligence');
  return { client: join(scope, 'client'), cli: join(scope, 'cli') };
}

/** The staging of the packages as they are now, made if no file made it before. */
export async function stagedPackages(): Promise<Staging> {
  const dir = join(tmpdir(), `lim-staged-${sourcesHash()}`);
  if (!existsSync(dir)) {
    const building = `${dir}.${process.pid}.${Date.now()}`;
    try {
      await stagePackages(join(building, 'node_modules', '@lead-intelligence'));
      try {
        renameSync(building, dir);
      } catch (err) {
        // another file renamed its staging of the same sources into place first
        if (!existsSync(dir)) throw err;
      }
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
  }
  return { dir, packages: layout(dir) };
}
