import { DomainError } from '@app/platform';

export interface GroupCommitLimits {
  /** At most this many items of one key share a transaction. */
  batchMax: number;
  /** An item that waited longer than this for its group is refused, not applied. */
  maxWaitMs: number;
}

/** Applies a group of one key's items in arrival order: one outcome (a result or the item's own error) per item. */
export type ApplyGroup<T, R> = (key: string, items: T[]) => Promise<(R | Error)[]>;

interface Waiting<T, R> {
  item: T;
  queuedAt: number;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit per key (a workspace): while one group of a key is being applied, the items that
 * arrive for that key wait here and are then applied together, one transaction for the lot, each
 * with its own outcome. Items of different keys never wait for each other. A group that fails
 * unexpectedly is applied again item by item, so one item cannot fail the others; a DomainError
 * of the group (no account) is every item's answer.
 */
export class GroupCommitQueue<T, R> {
  private readonly queues = new Map<string, Waiting<T, R>[]>();

  constructor(
    private readonly applyGroup: ApplyGroup<T, R>,
    /** One item alone, after its group failed. */
    private readonly applyOne: ApplyGroup<T, R>,
    private readonly limits: GroupCommitLimits,
  ) {}

  add(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const waiting: Waiting<T, R> = { item, queuedAt: Date.now(), resolve, reject };
      const queue = this.queues.get(key);
      if (queue) {
        queue.push(waiting);
        return;
      }
      const fresh = [waiting];
      this.queues.set(key, fresh);
      void this.drain(key, fresh);
    });
  }

  private async drain(key: string, queue: Waiting<T, R>[]): Promise<void> {
    try {
      while (queue.length > 0) {
        const now = Date.now();
        const batch: Waiting<T, R>[] = [];
        for (const waiting of queue.splice(0, this.limits.batchMax)) {
          if (now - waiting.queuedAt <= this.limits.maxWaitMs) batch.push(waiting);
          else waiting.reject(new DomainError('internal_error', 'billing was too busy to take the credit; nothing was charged'));
        }
        if (batch.length === 0) continue;
        try {
          const outcomes = await this.applyGroup(key, batch.map((w) => w.item));
          batch.forEach((waiting, i) => settle(waiting, outcomes[i]));
        } catch (err) {
          if (batch.length === 1 || err instanceof DomainError) {
            for (const waiting of batch) waiting.reject(err);
            continue;
          }
          for (const waiting of batch) {
            await this.applyOne(key, [waiting.item]).then(([outcome]) => settle(waiting, outcome), (e: Error) => waiting.reject(e));
          }
        }
      }
    } finally {
      if (this.queues.get(key) === queue) this.queues.delete(key);
    }
  }
}

function settle<T, R>(waiting: Waiting<T, R>, outcome: R | Error): void {
  if (outcome instanceof Error) waiting.reject(outcome);
  else waiting.resolve(outcome);
}
