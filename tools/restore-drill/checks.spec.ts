import { checkRestore, DatabaseState, DrillEvidence, stoppedAtTarget } from './checks';

const state = (over: { plan?: number; ledgerPlan?: number; entities?: number; counted?: number; extra?: boolean; after?: number } = {}): DatabaseState => ({
  billing: {
    accounts: [
      { workspace_id: 'ws_drill_0', plan_balance: over.plan ?? 90, pack_balance: 500, ledger_plan: over.ledgerPlan ?? over.plan ?? 90, ledger_pack: 500, entries: 4 },
      ...(over.extra ? [{ workspace_id: 'ws_drill_after_0', plan_balance: 5000, pack_balance: 500, ledger_plan: 5000, ledger_pack: 500, entries: 2 }] : []),
    ],
    entries: over.extra ? 6 : 4,
    refunded_refs: 1,
  },
  search: { entities: over.entities ?? 600, counted: over.counted ?? over.entities ?? 600 },
  after: { accounts: over.after ?? 0, ledger_entries: over.after ?? 0, entities_inserted: over.after ?? 0, entities_updated: over.after ?? 0 },
});

const POINT_LOG = 'LOG:  recovery stopping at restore point "drill-1", time 2026-11-29 09:02:38.028 UTC\n';
const evidence = (restored: DatabaseState, over: Partial<DrillEvidence> = {}): DrillEvidence => ({
  atPoint: state(),
  sourceAfter: state({ plan: 70, entities: 660, extra: true, after: 3 }),
  restored,
  restoredLog: POINT_LOG,
  target: { kind: 'name', name: 'drill-1' },
  ...over,
});
const failed = (e: DrillEvidence) => checkRestore(e).filter((c) => !c.ok).map((c) => c.name);

describe('restore drill checks', () => {
  it.each<[string, DrillEvidence, string[]]>([
    ['the state at the point, restored', evidence(state()), []],
    ['a balance that is not its ledger\'s sum', evidence(state({ plan: 91, ledgerPlan: 90 })),
      ['billing: every balance is the sum of its ledger', 'billing: balances and ledgers are those at the point']],
    ['balances moved on past the point (its ledger with them)', evidence(state({ plan: 70 })), ['billing: balances and ledgers are those at the point']],
    ['an account opened after the point', evidence(state({ extra: true })), ['billing: balances and ledgers are those at the point']],
    ['entities_count not the count of entities', evidence(state({ counted: 599 })), ['search: entities_count is the number of entities']],
    ['entities inserted after the point', evidence(state({ entities: 660 })), ['search: the entities are those at the point']],
    ['rows marked as written after the point', evidence(state({ after: 1 })), ['nothing written after the point is present']],
    ['recovery that stopped elsewhere', evidence(state(), { restoredLog: 'LOG:  redo done at 0/7000100\n' }), ['recovery stopped at the target']],
    ['a source that wrote nothing after the point (the check above would hold by default)', evidence(state(), { sourceAfter: state() }),
      ['the source wrote after the point, and its WAL was archived']],
    ['a source whose later writes left some mark out', evidence(state(), { sourceAfter: { ...state({ plan: 70, extra: true, after: 3 }), after: { accounts: 1, ledger_entries: 3, entities_inserted: 0, entities_updated: 3 } } }),
      ['the source wrote after the point, and its WAL was archived']],
  ])('%s', (_case, e, expected) => {
    expect(failed(e)).toEqual(expected);
  });

  it('a failed check says what was found', () => {
    const [check] = checkRestore(evidence(state({ after: 2 }))).filter((c) => !c.ok);
    expect(check.detail).toEqual([['accounts', 2], ['ledger_entries', 2], ['entities_inserted', 2], ['entities_updated', 2]]);
  });

  it.each<[string, DrillEvidence['target'], string, boolean]>([
    ['the named point', { kind: 'name', name: 'drill-1' }, POINT_LOG, true],
    ['another named point', { kind: 'name', name: 'drill-2' }, POINT_LOG, false],
    ['a time, stopping before a later commit', { kind: 'time', time: '2026-11-29 09:02:38.1+00' }, 'LOG:  recovery stopping before commit of transaction 1234, time 2026-11-29 09:02:38.2+00\n', true],
    ['a time, with recovery run to the end', { kind: 'time', time: '2026-11-29 09:02:38.1+00' }, 'LOG:  redo done at 0/7000100\n', false],
  ])('recovery stopped at %s', (_case, target, log, stopped) => {
    expect(stoppedAtTarget(log, target)).toBe(stopped);
  });
});
