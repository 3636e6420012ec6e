const { readFileSync } = require('node:fs');
const { default: TestSequencer } = require('@jest/test-sequencer');

/**
 * The order `npm test` starts its files in (jest.config.js's testSequencer). Jest's own order is
 * slowest first by the durations it cached on an earlier run, else largest file first; its cache
 * is keyed by the checkout's path, so a fresh clone (CI) has none, and file size says little
 * about an e2e file (the chaos spec is one of the shortest and the slowest). A slow file started
 * last keeps one worker busy while the other idles. So, among the files jest has no duration
 * for, those known to be the slowest go first (SLOWEST, slowest first), the others after them in
 * jest's order. A duration jest has cached still decides, as in jest's own order.
 *
 * The files on a shared mesh (`TestMesh.shared`, `TestMesh.sharedAll`: docs/testing.md, "Shared
 * meshes") that start no mesh of their own run after all the other e2e files and the slowest
 * others, and before the remaining unit and integration files (short, no mesh: they fill the
 * workers while the last shared files finish), those of one mesh together
 * (the six's, then gateway and crm's), in that same order among themselves. A worker keeps the
 * mesh it used last running for the next file; a file that starts a mesh of its own, or another
 * shared one, stops it first (test/harness.ts). With the shared files last and grouped, no mesh
 * is stopped only to be started again, and a worker holds one mesh at a time (PostgreSQL's
 * connections: docs/testing.md, "Workers and order").
 */
const SLOWEST = [
  // the ten slowest of the last measured full run (docs/testing.md, "Where the time goes": CI on a
  // fresh clone, Node 24, 2026-11-29), slowest first
  'test/chaos/chaos.e2e-spec.ts',
  'test/e2e/operations/cluster-chaos.e2e-spec.ts',
  'test/e2e/api/lim-cli.e2e-spec.ts',
  'test/e2e/operations/quickstart.e2e-spec.ts',
  'test/e2e/api/sequences.e2e-spec.ts',
  'test/deploy/migrate.integration-spec.ts',
  'test/e2e/api/search.e2e-spec.ts',
  'test/openapi/packages-install.e2e-spec.ts',
  'test/e2e/api/rate-limit.e2e-spec.ts',
  'test/e2e/operations/exports-recovery.e2e-spec.ts',
  // then the slow ones of earlier runs
  'test/e2e/operations/admin-cli.e2e-spec.ts',
  'test/e2e/api/reveals.e2e-spec.ts',
  'test/e2e/operations/dead-letters.e2e-spec.ts',
  'test/e2e/api/fuzz.e2e-spec.ts',
  'test/e2e/operations/sequences-imap.e2e-spec.ts',
  'test/e2e/api/lists.e2e-spec.ts',
  'test/e2e/api/credits.e2e-spec.ts',
  'test/e2e/operations/sequences-engine.e2e-spec.ts',
  'test/mesh/start.e2e-spec.ts',
  'test/openapi/openapi-examples.e2e-spec.ts',
  'test/deploy/image.e2e-spec.ts',
  'test/deploy/compose-run.e2e-spec.ts',
  // the slowest of the shared files (run last, test/harness.ts: 2 workers, e328f71, 2026-11-29)
  'test/openapi/client-package.e2e-spec.ts',
  'test/e2e/api/tasks.e2e-spec.ts',
];

/** Lower runs earlier. */
function group(test) {
  const path = test.path.slice(test.context.config.rootDir.length + 1).split('\\').join('/');
  const slow = SLOWEST.indexOf(path);
  return slow >= 0 ? slow : SLOWEST.length;
}

/**
 * Which shared mesh the file runs on, when it runs on a shared mesh only: 'all' (sharedAll),
 * 'apps' (TestMesh.shared: gateway and crm, no settings, in every file that asks now), or
 * undefined: it asks for none, or it also starts a mesh of its own (rate-limit: it runs with the
 * others, since its own mesh would stop the worker's idle shared ones).
 */
function sharedMesh(test) {
  if (!test.path.endsWith('.e2e-spec.ts')) return undefined;
  let source;
  try {
    source = readFileSync(test.path, 'utf8');
  } catch {
    return undefined;
  }
  if (/\bTestMesh\.start\(/.test(source)) return undefined;
  if (/\bTestMesh\.sharedAll\(/.test(source)) return 'all';
  return /\bTestMesh\.shared\(/.test(source) ? 'apps' : undefined;
}

class SlowestFirst extends TestSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    // jest's order puts files without a cached duration first, largest first; among those, ours
    const unknown = sorted.filter((test) => test.duration == null);
    const known = sorted.filter((test) => test.duration != null);
    const position = new Map(unknown.map((test, i) => [test, i]));
    unknown.sort((a, b) => group(a) - group(b) || position.get(a) - position.get(b));
    const ordered = [...unknown, ...known];
    const mesh = new Map(ordered.map((test) => [test, sharedMesh(test)]));
    const filler = (test) => mesh.get(test) === undefined && group(test) === SLOWEST.length && !test.path.endsWith('.e2e-spec.ts');
    return [
      ...ordered.filter((test) => mesh.get(test) === undefined && !filler(test)),
      ...ordered.filter((test) => mesh.get(test) === 'all'),
      ...ordered.filter((test) => mesh.get(test) === 'apps'),
      // the unit and integration files not among the slowest last: short, and needing no mesh, they
      // fill the workers while the last shared files (client-package's packing, 40 s) finish,
      // instead of one worker running those alone at the end (2026-11-29 13:30 run: 29 s of the
      // wall time with one or two of three workers busy)
      ...ordered.filter(filler),
    ];
  }
}

module.exports = SlowestFirst;
