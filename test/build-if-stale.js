#!/usr/bin/env node
/**
 * The build before the tests (package.json's pretest, test:integration, test:e2e, test:node20, and
 * prepare, which `npm ci` runs): `npm run -s build`
 * unless dist/ is already the build of the sources as they are now, which a run of one file after
 * another (`npm test -- <path>`, again and again) mostly finds.
 *
 * "As they are now" is checked, not assumed: the stamp a build leaves (dist/.build-stamp) holds a
 * hash of the content of every file the build reads (apps, libs and tools, which swc compiles or
 * copies, and .swcrc, package.json and package-lock.json, which say how) taken before it started,
 * and a hash of dist/'s listing (each file's path, size and modification time) after it ended. A
 * source edited, added or removed, a different swc, or dist/ touched since (a file removed,
 * rebuilt by another command, edited) fails the check, and the build runs. `npm run build` alone
 * leaves no stamp, so the next check builds again. TEST_BUILD=always builds whatever the stamp says.
 */
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

const ROOT = join(__dirname, '..');
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.build-stamp');
const SOURCE_DIRS = ['apps', 'libs', 'tools'];
const BUILD_FILES = ['.swcrc', 'package.json', 'package-lock.json'];

/** Every file under `dir`, as paths relative to the repository with /, sorted. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath ?? entry.path, entry.name)).split(sep).join('/'))
    .sort();
}

function sourcesHash() {
  const hash = createHash('sha256');
  for (const file of [...SOURCE_DIRS.flatMap((dir) => filesUnder(join(ROOT, dir))), ...BUILD_FILES]) {
    hash.update(file).update('\0').update(existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file)) : '(none)').update('\0');
  }
  return hash.digest('hex');
}

function distListing() {
  const hash = createHash('sha256');
  for (const file of filesUnder(DIST)) {
    if (file === 'dist/.build-stamp') continue;
    const { size, mtimeMs } = statSync(join(ROOT, file));
    hash.update(`${file}\0${size}\0${mtimeMs}\0`);
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return null;
  }
}

const sources = sourcesHash();
const stamp = readStamp();
if (process.env.TEST_BUILD !== 'always' && stamp && stamp.sources === sources && stamp.dist === distListing()) {
  process.stderr.write('dist/ is the build of the sources as they are: not built again (TEST_BUILD=always builds)\n');
  process.exit(0);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const build = spawnSync(npm, ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
writeFileSync(STAMP, `${JSON.stringify({ sources, dist: distListing() })}\n`);
