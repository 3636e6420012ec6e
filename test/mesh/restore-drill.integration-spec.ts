import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupStartSegment, PreparedSource, prepareSource, restoreAndCheck } from '../../tools/restore-drill/drill';
import { longTestMs } from '../harness';

/**
 * The restore drill (npm run restore-drill) on real PostgreSQL servers of its own, with small
 * data: the cluster run's pair (PgPair) archives its WAL and is backed up; billing's and search's
 * databases, migrated and written through the services' code, are restored to the restore point
 * on a fresh server, by the point's name and by its time, and every check holds. Restored instead to the end of the archive, the same
 * checks fail where the writes after the point show: they can tell the two apart.
 */
describe('restore drill: a point-in-time restore of billing and search', () => {
  let dir: string;
  let source: PreparedSource;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'restore-drill-spec-'));
    chmodSync(dir, 0o755);
    source = await prepareSource(dir, { accounts: 12, consumes: 10, entities: 300 }, 'name');
  }, longTestMs(180_000));

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the pair archived its WAL from before the drill\'s base backup to past the point', () => {
    const start = backupStartSegment(source.baseBackupDir);
    const segments = readdirSync(source.archiveDir).filter((f) => /^[0-9A-F]{24}$/.test(f));
    expect(segments).toContain(start);
    expect(segments.filter((f) => f > start).length).toBeGreaterThan(0);
    expect(source.atPoint.billing.accounts).toHaveLength(24);
    expect(source.atPoint.search.entities).toBe(600);
  });

  const ALL_HOLD = [
    'the source wrote after the point, and its WAL was archived',
    'recovery stopped at the target',
    'billing: every balance is the sum of its ledger',
    'billing: balances and ledgers are those at the point',
    'search: entities_count is the number of entities',
    'search: the entities are those at the point',
    'nothing written after the point is present',
  ].map((name) => ({ name, ok: true }));

  it('restored to the restore point on a fresh server: ledgers sum to balances as at the point, entities as at the point, nothing after it', async () => {
    const outcome = await restoreAndCheck(source, join(dir, 'to-point'), source.points.name);
    expect(outcome.checks).toEqual(ALL_HOLD);
    expect(outcome.segmentsRestored).toBeGreaterThan(0);
    expect(outcome.timing.total_ms).toBe(outcome.timing.unpack_ms + outcome.timing.recovery_ms);
  }, longTestMs(180_000));

  it('restored to the time the point was made (recovery_target_time, as a Cluster\'s targetTime): the same', async () => {
    const outcome = await restoreAndCheck(source, join(dir, 'to-time'), source.points.time);
    expect(outcome.checks).toEqual(ALL_HOLD);
  }, longTestMs(180_000));

  it('a target the archive never reaches fails the restore at once, with the server\'s word for it', async () => {
    await expect(restoreAndCheck(source, join(dir, 'to-nowhere'), { kind: 'name', name: 'no-such-point' }))
      .rejects.toThrow(/stopped during recovery[\s\S]*recovery ended before configured recovery target was reached/);
  }, longTestMs(180_000));

  it('restored to the end of the archive instead, the checks of the point fail, the invariants still hold', async () => {
    const outcome = await restoreAndCheck(source, join(dir, 'to-end'), 'end');
    const failed = outcome.checks.filter((c) => !c.ok).map((c) => c.name);
    expect(failed).toEqual([
      'recovery stopped at the target',
      'billing: balances and ledgers are those at the point',
      'search: the entities are those at the point',
      'nothing written after the point is present',
    ]);
    const after = outcome.checks.find((c) => c.name === 'nothing written after the point is present')!;
    expect(Object.fromEntries(after.detail as [string, number][])).toEqual({
      accounts: source.sourceAfter.after.accounts,
      ledger_entries: source.sourceAfter.after.ledger_entries,
      entities_inserted: source.sourceAfter.after.entities_inserted,
      entities_updated: source.sourceAfter.after.entities_updated,
    });
  }, longTestMs(180_000));
});
