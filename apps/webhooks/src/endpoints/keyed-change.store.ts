import { RequestContext } from '@app/contracts';
import { IdempotentCreate, Queryable } from '@app/platform';

export interface KeyedChangeTable {
  /** `(workspace_id, key, request_hash, <column>, answer, created_at)` with primary key `(workspace_id, key)`. */
  table: string;
  /** The column holding the changed object's id. */
  column: string;
  noun: string;
}

/** How an answer is kept: as it is, or sealed when it carries a secret. */
export interface AnswerCodec<T> {
  seal(answer: T): string;
  open(stored: string): T;
}

/**
 * A request that changes an object rather than making one (a secret roll, a delivery sent again),
 * keyed as creates are (IdempotentCreate): the Idempotency-Key records, in the change's own
 * transaction, which object it changed and the answer it gave. The request asked again with its
 * key (a gateway that took over a dead one's claim, a retry after a time-out) answers that, and
 * changes nothing more.
 */
export class KeyedChange<T> {
  private readonly keys: IdempotentCreate;

  constructor(
    private readonly table: KeyedChangeTable,
    private readonly codec: AnswerCodec<T>,
  ) {
    this.keys = new IdempotentCreate(table);
  }

  /**
   * Inside the change's transaction on `db`: runs `change` on object `id` unless the request's
   * key already changed it; then the answer given then. The key used with another request, or
   * naming an object deleted since, is a conflict on `Idempotency-Key`.
   */
  run(db: Queryable, ctx: RequestContext, id: string, change: () => Promise<T>, exists: (id: string) => Promise<boolean>): Promise<T> {
    return this.keys.run(
      db,
      ctx,
      id,
      async () => {
        const answer = await change();
        if (ctx.idempotency) {
          await db.query(`UPDATE ${this.table.table} SET answer = $3 WHERE workspace_id = $1 AND key = $2`, [
            ctx.workspace_id, ctx.idempotency.key, this.codec.seal(answer),
          ]);
        }
        return answer;
      },
      async (earlierId) => {
        if (!(await exists(earlierId))) return undefined;
        const { rows } = await db.query<{ answer: string | null }>(`SELECT answer FROM ${this.table.table} WHERE workspace_id = $1 AND key = $2`, [
          ctx.workspace_id, ctx.idempotency!.key,
        ]);
        return rows[0]?.answer == null ? undefined : this.codec.open(rows[0].answer);
      },
    );
  }

  sweepPeriodically: IdempotentCreate['sweepPeriodically'] = (pool) => this.keys.sweepPeriodically(pool);
}
