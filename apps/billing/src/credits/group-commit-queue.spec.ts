import { DomainError } from '@app/platform';
import { ApplyGroup, GroupCommitQueue } from './group-commit-queue';

/** A group applier that records its groups and answers each item with `answer`, until released. */
function recorder(answer: (item: number) => number | Error = (item) => item * 10) {
  const groups: [string, number[]][] = [];
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  const apply: ApplyGroup<number, number> = async (key, items) => {
    groups.push([key, items]);
    await gate;
    return items.map(answer);
  };
  return {
    groups,
    apply,
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
  };
}

describe('GroupCommitQueue', () => {
  it('applies what arrives while a group of the key is applied as one group, in arrival order', async () => {
    const r = recorder();
    const queue = new GroupCommitQueue(r.apply, r.apply, { batchMax: 200, maxWaitMs: 10_000 });
    r.hold();
    const first = queue.add('ws_a', 1);
    const rest = [queue.add('ws_a', 2), queue.add('ws_a', 3), queue.add('ws_a', 4)];
    r.release();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40]);
    expect(r.groups).toEqual([['ws_a', [1]], ['ws_a', [2, 3, 4]]]);
  });

  it('never makes one key wait for another', async () => {
    const r = recorder();
    const queue = new GroupCommitQueue(r.apply, r.apply, { batchMax: 200, maxWaitMs: 10_000 });
    r.hold();
    const a = queue.add('ws_a', 1);
    const b = queue.add('ws_b', 2);
    expect(r.groups).toEqual([['ws_a', [1]], ['ws_b', [2]]]);
    r.release();
    expect(await Promise.all([a, b])).toEqual([10, 20]);
  });

  it('splits a queue longer than the group limit', async () => {
    const r = recorder();
    const queue = new GroupCommitQueue(r.apply, r.apply, { batchMax: 2, maxWaitMs: 10_000 });
    r.hold();
    const all = [1, 2, 3, 4, 5, 6].map((n) => queue.add('ws_a', n));
    r.release();
    await Promise.all(all);
    expect(r.groups.map(([, items]) => items)).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it("answers each item with its own outcome: one item's error is not the others'", async () => {
    const r = recorder((item) => (item === 2 ? new DomainError('insufficient_credits', 'no') : item));
    const queue = new GroupCommitQueue(r.apply, r.apply, { batchMax: 200, maxWaitMs: 10_000 });
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => queue.add('ws_a', n)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('applies a group that failed unexpectedly again item by item', async () => {
    const singles: number[][] = [];
    let groupCalls = 0;
    let release: () => void = () => undefined;
    const firstGroupHeld = new Promise<void>((resolve) => (release = resolve));
    const queue = new GroupCommitQueue<number, number>(
      async (_key, items) => {
        groupCalls++;
        if (groupCalls === 1) {
          await firstGroupHeld;
          return items;
        }
        throw new Error('connection lost');
      },
      async (_key, items) => {
        singles.push(items);
        if (items[0] === 3) throw new Error('this one is broken');
        return items;
      },
      { batchMax: 200, maxWaitMs: 10_000 },
    );
    const first = queue.add('ws_a', 1);
    const rest = [2, 3, 4].map((n) => queue.add('ws_a', n));
    release();
    const outcomes = await Promise.allSettled([first, ...rest]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([1, 2, 'this one is broken', 4]);
    expect(singles).toEqual([[2], [3], [4]]);
  });

  it('gives a DomainError of the group (no account) to every item, without retrying them one by one', async () => {
    const singles: number[][] = [];
    const queue = new GroupCommitQueue<number, number>(
      async () => {
        throw new DomainError('insufficient_credits', 'This workspace has no credit account yet');
      },
      async (_key, items) => {
        singles.push(items);
        return items;
      },
      { batchMax: 200, maxWaitMs: 10_000 },
    );
    const outcomes = await Promise.allSettled([queue.add('ws_a', 1), queue.add('ws_a', 2)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(singles).toEqual([]);
  });

  it('refuses, without applying, an item that waited longer than its caller will', async () => {
    const r = recorder();
    const queue = new GroupCommitQueue(r.apply, r.apply, { batchMax: 200, maxWaitMs: 20 });
    r.hold();
    const first = queue.add('ws_a', 1);
    const late = queue.add('ws_a', 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    r.release();
    expect(await first).toBe(10);
    await expect(late).rejects.toMatchObject({ code: 'internal_error' });
    expect(r.groups).toEqual([['ws_a', [1]]]);
  });
});
