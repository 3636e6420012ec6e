import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from '../mesh/processes';
import { packPackages, stagePackages } from './stage';

/**
 * `npm run packages:pack [-- <folder>]`: the tarballs of @lead-intelligence/client and
 * @lead-intelligence/cli (the `lim` command), in dist/packages unless a folder is given, for
 * `npm install ./lead-intelligence-client-<version>.tgz ./lead-intelligence-cli-<version>.tgz`.
 */
async function main(): Promise<void> {
  const destination = resolve(process.argv[2] ?? join(ROOT, 'dist', 'packages'));
  const stage = mkdtempSync(join(tmpdir(), 'lim-stage-'));
  try {
    const tarballs = await packPackages(await stagePackages(stage), destination);
    for (const file of Object.values(tarballs)) process.stdout.write(`wrote ${file}\n`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 1;
  });
}
