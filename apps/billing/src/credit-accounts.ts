import { ID_PREFIX, Plan } from '@app/contracts';
import { newId, Queryable } from '@app/platform';

export interface OpeningBalance {
  workspace_id: string;
  plan: Plan;
  plan_credits: number;
  pack_credits: number;
}

/**
 * Opens a workspace's credit account with its first period and grants the starting balances.
 * Returns false when the account already exists: its balances are then left alone, so opening
 * twice never grants twice.
 */
export async function openCreditAccount(tx: Queryable, opening: OpeningBalance): Promise<boolean> {
  const created = await tx.query(
    `INSERT INTO credit_accounts (workspace_id, plan, plan_balance, pack_balance, period_ends_at)
     VALUES ($1, $2, $3, $4, now() + interval '1 month')
     ON CONFLICT (workspace_id) DO NOTHING`,
    [opening.workspace_id, opening.plan, opening.plan_credits, opening.pack_credits],
  );
  if (created.rowCount !== 1) return false;
  const grants = [
    { pool: 'plan', amount: opening.plan_credits, reason: 'plan_renewal' },
    { pool: 'pack', amount: opening.pack_credits, reason: `pack_${opening.pack_credits}` },
  ].filter((grant) => grant.amount > 0);
  for (const grant of grants) {
    await tx.query(
      `INSERT INTO ledger_entries (id, workspace_id, type, amount, reason, pool) VALUES ($1, $2, 'grant', $3, $4, $5)`,
      [newId(ID_PREFIX.ledgerEntry), opening.workspace_id, grant.amount, grant.reason, grant.pool],
    );
  }
  return true;
}
