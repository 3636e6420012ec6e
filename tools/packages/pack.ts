import { join, resolve } from 'node:path';
import { ROOT } from '../mesh/processes';
import { packPackages, stagedPackages } from './stage';

/**
 * `npm run packages:pack [-- <folder>]`: the tarballs of @lead-intelligence/client and
 * @lead-intelligence/cli (the `lim` command), in dist/packages unless a folder is given, for
 * `npm install ./lead-intelligence-client-<version>.tgz ./lead-intelligence-cli-<version>.tgz`.
 * The packages are compiled once for their sources as they are (`stagedPackages`, kept in
 * .data/staged-packages); a second pack of the same sources only packs.
 */
async function main(): Promise<void> {
  const destination = resolve(process.argv[2] ?? join(ROOT, 'dist', 'packages'));
  const tarballs = await packPackages((await stagedPackages()).packages, destination);
  for (const file of Object.values(tarballs)) process.stdout.write(`wrote ${file}\n`);
}

if (require.main === module) {
  main().catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 1;
  });
}
