import { LedgerEntry } from '@app/contracts';
import { LedgerRow } from './ledger.repository';

export function renderEntry(row: LedgerRow): LedgerEntry {
  return { id: row.id, type: row.type, amount: row.amount, reason: row.reason, ref: row.ref, pool: row.pool, created_at: row.created_at.toISOString() };
}
