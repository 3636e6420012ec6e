const { default: TestSequencer } = require('@jest/test-sequencer');

/**
 * The order `npm test` starts its files in (jest.config.js's testSequencer). Jest's own order is
 * slowest first by the durations it cached on an earlier run, else largest file first; its cache
 * is keyed by the checkout's path, so a fresh clone (CI) has none, and file size says little
 * about an e2e file (the chaos spec is one of the shortest and the slowest). A slow file started
 * last keeps one worker busy while the other idles. So, among the files jest has no duration
 * for, those known to be the slowest go first (SLOWEST, slowest first), the others after them in
 * jest's order. A duration jest has cached still decides, as in jest's own order.
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
];

/** Lower runs earlier. */
function group(test) {
  const path = test.path.slice(test.context.config.rootDir.length + 1).split('\\').join('/');
  const slow = SLOWEST.indexOf(path);
  return slow >= 0 ? slow : SLOWEST.length;
}

class SlowestFirst extends TestSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    // jest's order puts files without a cached duration first, largest first; among those, ours
    const unknown = sorted.filter((test) => test.duration == null);
    const known = sorted.filter((test) => test.duration != null);
    const position = new Map(unknown.map((test, i) => [test, i]));
    unknown.sort((a, b) => group(a) - group(b) || position.get(a) - position.get(b));
    return [...unknown, ...known];
  }
}

module.exports = SlowestFirst;
