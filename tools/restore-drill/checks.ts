/**
 * The restore drill's checks: pure functions of the states it read (at the restore point on the
 * source, on the source after its later writes, on the restored server) and of the restored
 * server's log, so a run's evidence can be checked again and each rule has a table of cases.
 */

export interface BillingState {
  /** Every credit account with its ledger's sums per pool, by workspace id. */
  accounts: { workspace_id: string; plan_balance: number; pack_balance: number; ledger_plan: number; ledger_pack: number; entries: number }[];
  entries: number;
  refunded_refs: number;
}

export interface SearchState {
  /** count(*) of entities */
  entities: number;
  /** entities_count.n, kept by each batch's transaction */
  counted: number;
}

/** What carries a mark of the writes made after the restore point. */
export interface AfterMarks {
  accounts: number;
  ledger_entries: number;
  entities_inserted: number;
  entities_updated: number;
}

export interface DatabaseState {
  billing: BillingState;
  search: SearchState;
  after: AfterMarks;
}

export interface Check {
  name: string;
  ok: boolean;
  /** What was found when the check failed (nothing when it held). */
  detail?: unknown;
}

export interface DrillEvidence {
  /** Read on the source just before the restore point was made (writes stopped meanwhile). */
  atPoint: DatabaseState;
  /** Read on the source after the writes that followed the point, once their WAL was archived. */
  sourceAfter: DatabaseState;
  /** Read on the restored server once it was promoted. */
  restored: DatabaseState;
  /** The restored server's log. */
  restoredLog: string;
  target: { kind: 'name'; name: string } | { kind: 'time'; time: string };
}

const marked = (after: AfterMarks) => Object.entries(after).filter(([, n]) => n > 0);

/** Accounts whose balance differs from the sum of their ledger, in either pool. */
export function unbalanced(billing: BillingState): BillingState['accounts'] {
  return billing.accounts.filter((a) => a.plan_balance !== a.ledger_plan || a.pack_balance !== a.ledger_pack);
}

/** The accounts of `actual` that differ from `expected` (or are missing from either), by workspace id. */
export function accountDifferences(expected: BillingState, actual: BillingState): { workspace_id: string; expected?: unknown; actual?: unknown }[] {
  const byId = (state: BillingState) => new Map(state.accounts.map((a) => [a.workspace_id, a]));
  const want = byId(expected);
  const got = byId(actual);
  const differences: { workspace_id: string; expected?: unknown; actual?: unknown }[] = [];
  for (const id of new Set([...want.keys(), ...got.keys()])) {
    if (JSON.stringify(want.get(id)) !== JSON.stringify(got.get(id))) differences.push({ workspace_id: id, expected: want.get(id), actual: got.get(id) });
  }
  return differences;
}

/** The line PostgreSQL logs where recovery stopped, for the target asked. */
export function stoppedAtTarget(log: string, target: DrillEvidence['target']): boolean {
  if (target.kind === 'name') return log.includes(`recovery stopping at restore point "${target.name}"`);
  return /recovery stopping (before|after) commit of transaction \d+, time /.test(log);
}

export function checkRestore(evidence: DrillEvidence): Check[] {
  const { atPoint, sourceAfter, restored } = evidence;
  const check = (name: string, failure: unknown): Check => (failure === undefined ? { name, ok: true } : { name, ok: false, detail: failure });
  const some = <T>(list: T[]) => (list.length ? list.slice(0, 5) : undefined);
  const differences = accountDifferences(atPoint.billing, restored.billing);
  const billingTotals = (s: BillingState) => ({ accounts: s.accounts.length, entries: s.entries, refunded_refs: s.refunded_refs });
  return [
    // without later writes in the archive, "nothing after the point" would hold by default
    check('the source wrote after the point, and its WAL was archived',
      marked(sourceAfter.after).length === Object.keys(sourceAfter.after).length && accountDifferences(atPoint.billing, sourceAfter.billing).length > 0
        ? undefined : { after: sourceAfter.after }),
    check('recovery stopped at the target', stoppedAtTarget(evidence.restoredLog, evidence.target) ? undefined : { target: evidence.target }),
    check('billing: every balance is the sum of its ledger', some(unbalanced(restored.billing))),
    check('billing: balances and ledgers are those at the point',
      differences.length === 0 && JSON.stringify(billingTotals(restored.billing)) === JSON.stringify(billingTotals(atPoint.billing))
        ? undefined : { differences: differences.slice(0, 5), expected: billingTotals(atPoint.billing), actual: billingTotals(restored.billing) }),
    check('search: entities_count is the number of entities', restored.search.counted === restored.search.entities ? undefined : restored.search),
    check('search: the entities are those at the point', restored.search.entities === atPoint.search.entities ? undefined : { expected: atPoint.search.entities, actual: restored.search.entities }),
    check('nothing written after the point is present', some(marked(restored.after))),
  ];
}
