import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { API_VERSIONS, RequestContext } from '@app/contracts';
import { poolConfig, poolOf, poolSettings, serviceDataSourceOptions, UnitOfWork } from '@app/platform';
import { loadBillingConfig } from '../../apps/billing/src/billing.config';
import { CreditsService } from '../../apps/billing/src/credits/credits.service';
import { LedgerRepository } from '../../apps/billing/src/credits/ledger.repository';
import { EntitiesRepository } from '../../apps/search/src/entities/entities.repository';
import { seedEntity } from '../../apps/search/src/entities/seed';
import { loadSearchConfig } from '../../apps/search/src/search.config';
import { SearchReads } from '../../apps/search/src/search/search-reads.store';
import { BillingState, DatabaseState, SearchState } from './checks';

/**
 * What the drill writes, through the services' own code on their migrated databases: billing's
 * CreditsService (accounts opened as a workspace.created opens them, consumes through the group
 * commit and billing_consume, refunds, grants) and search's EntitiesRepository.upsertMany (the
 * seed and ingest path, entities_count kept in each batch's transaction). What is written after
 * the restore point carries marks (`after-point-` refs, `ws_drill_after_` accounts, `drill-after:`
 * entities, a later fetched_at on the entities it updates), so a restore can be searched for any
 * of it.
 */

const AFTER_WORKSPACE = 'ws_drill_after_';
const AFTER_REF = 'after-point-';
const AFTER_EXT_KEY = 'drill-after:';
const AFTER_FETCHED_AT = '2026-12-31T23:59:59.000Z';

/** How much each phase writes. */
export interface WorkloadSize {
  /** Credit accounts opened in each of the two phases before the point (and a tenth of it after). */
  accounts: number;
  /** Consumes per account in each phase (a tenth of them refunded). */
  consumes: number;
  /** Entities inserted in each of the two phases before the point (and a tenth of it after, as many updated). */
  entities: number;
}

export type Phase = 'before-backup' | 'after-backup' | 'after-point';

const ctxOf = (workspaceId: string): RequestContext =>
  ({ workspace_id: workspaceId, livemode: true, api_version: API_VERSIONS[API_VERSIONS.length - 1], plan: 'growth', request_id: `req_drill_${workspaceId}` }) as RequestContext;

/** Runs `work` over `items`, `width` at a time. */
async function inTurns<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

/** billing's and search's writers on their databases, as the services hold them. */
export class DrillWriter {
  private constructor(
    private readonly billing: DataSource,
    private readonly uow: UnitOfWork,
    private readonly credits: CreditsService,
    private readonly searchPool: Pool,
    private readonly entities: EntitiesRepository,
  ) {}

  static async open(urls: { billing: string; search: string }): Promise<DrillWriter> {
    const billing = new DataSource(serviceDataSourceOptions({ databaseUrl: urls.billing }));
    await billing.initialize();
    const uow = new UnitOfWork(billing);
    const credits = new CreditsService(new LedgerRepository(poolOf(billing)), uow, loadBillingConfig({}));
    const searchConfig = loadSearchConfig({});
    const searchPool = new Pool(poolConfig(urls.search, poolSettings({})));
    const entities = new EntitiesRepository(searchPool, new SearchReads(searchPool, searchConfig, undefined as never));
    return new DrillWriter(billing, uow, credits, searchPool, entities);
  }

  /** One phase of writes; the accounts written before are consumed from again (and refunded, granted). */
  async write(phase: Phase, size: WorkloadSize): Promise<void> {
    const after = phase === 'after-point';
    const accounts = after ? Math.max(1, Math.floor(size.accounts / 10)) : size.accounts;
    const first = phase === 'before-backup' ? 0 : size.accounts;
    const opened = Array.from({ length: accounts }, (_, i) => (after ? `${AFTER_WORKSPACE}${i}` : `ws_drill_${first + i}`));
    // as billing's workspace.created consumer opens them, in a unit of work
    await inTurns(opened, 8, async (workspace_id) => {
      await this.uow.run((tx) => this.credits.openAccount(tx, { workspace_id, plan: 'growth', plan_credits: 5000, pack_credits: 500 }));
    });
    const existing = Array.from({ length: phase === 'before-backup' ? 0 : size.accounts * (after ? 2 : 1) }, (_, i) => `ws_drill_${i}`);
    const consuming = [...existing, ...opened];
    const prefix = after ? AFTER_REF : `${phase}-`;
    await inTurns(consuming, 16, async (workspace) => {
      const ctx = ctxOf(workspace);
      for (let c = 0; c < size.consumes; c++) {
        const ref = `${prefix}${workspace}-${c}`;
        await this.credits.consume(ctx, { ref, amount: 1 + (c % 7), reason: 'reveal' });
        if (c % 10 === 9) await this.credits.refund(ctx, { ref, reason: 'reveal_failed' });
      }
      if (!workspace.startsWith(AFTER_WORKSPACE)) await this.credits.grant(ctx, { pool: 'pack', amount: 100, reason: 'pack_100' });
    });
    await this.writeEntities(phase, size);
  }

  private async writeEntities(phase: Phase, size: WorkloadSize): Promise<void> {
    const batch = 500;
    const write = async (inputs: ReturnType<typeof seedEntity>[]) => {
      for (let i = 0; i < inputs.length; i += batch) await this.entities.upsertMany(inputs.slice(i, i + batch));
    };
    if (phase !== 'after-point') {
      const first = phase === 'before-backup' ? 0 : size.entities;
      await write(Array.from({ length: size.entities }, (_, i) => ({ ...seedEntity(first + i), ext_key: `drill:${first + i}` })));
      return;
    }
    const count = Math.max(1, Math.floor(size.entities / 10));
    await write(Array.from({ length: count }, (_, i) => ({ ...seedEntity(2 * size.entities + i), ext_key: `${AFTER_EXT_KEY}${i}` })));
    await write(Array.from({ length: count }, (_, i) => ({ ...seedEntity(i, AFTER_FETCHED_AT), ext_key: `drill:${i}` })));
  }

  async close(): Promise<void> {
    await this.billing.destroy();
    await this.searchPool.end();
  }
}

/** billing's and search's state on a server: balances beside their ledgers, counts, and what carries an after-the-point mark. */
export async function readState(urls: { billing: string; search: string }): Promise<DatabaseState> {
  const billing = new Pool({ connectionString: urls.billing, max: 1 });
  const search = new Pool({ connectionString: urls.search, max: 1 });
  try {
    const { rows: accounts } = await billing.query<BillingState['accounts'][number]>(`
      SELECT a.workspace_id, a.plan_balance, a.pack_balance,
             coalesce(sum(l.amount) FILTER (WHERE l.pool = 'plan'), 0)::int AS ledger_plan,
             coalesce(sum(l.amount) FILTER (WHERE l.pool = 'pack'), 0)::int AS ledger_pack,
             count(l.id)::int AS entries
        FROM credit_accounts a LEFT JOIN ledger_entries l ON l.workspace_id = a.workspace_id
       GROUP BY a.workspace_id, a.plan_balance, a.pack_balance ORDER BY a.workspace_id COLLATE "C"`);
    const [{ entries, refunded_refs, after_accounts, after_entries }] = (await billing.query(`
      SELECT (SELECT count(*) FROM ledger_entries)::int AS entries,
             (SELECT count(*) FROM refunded_refs)::int AS refunded_refs,
             (SELECT count(*) FROM credit_accounts WHERE starts_with(workspace_id, $1))::int AS after_accounts,
             (SELECT count(*) FROM ledger_entries WHERE starts_with(ref, $2) OR starts_with(workspace_id, $1))::int AS after_entries`,
    [AFTER_WORKSPACE, AFTER_REF])).rows;
    const [searchRow] = (await search.query(`
      SELECT (SELECT count(*) FROM entities)::int AS entities,
             (SELECT n FROM entities_count)::int AS counted,
             (SELECT count(*) FROM entities WHERE starts_with(ext_key, $1))::int AS after_inserted,
             (SELECT count(*) FROM entities WHERE strpos(sources::text, $2) > 0)::int AS after_updated`,
    [AFTER_EXT_KEY, AFTER_FETCHED_AT])).rows;
    const searchState: SearchState = { entities: searchRow.entities, counted: searchRow.counted };
    return {
      billing: { accounts, entries, refunded_refs },
      search: searchState,
      after: { accounts: after_accounts, ledger_entries: after_entries, entities_inserted: searchRow.after_inserted, entities_updated: searchRow.after_updated },
    };
  } finally {
    await billing.end();
    await search.end();
  }
}
