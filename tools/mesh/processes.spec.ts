import { inLanes } from './processes';

/** A promise and the functions that settle it, by hand. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('inLanes (the starts of a mesh, a cluster and the chaos run)', () => {
  it('when one start fails, waits for the starts under way before it throws the first failure (so a stop after it finds them all)', async () => {
    const starts = [deferred(), deferred(), deferred()];
    let settled = false;
    const all = inLanes([0, 1, 2], 3, (i) => starts[i].promise).finally(() => {
      settled = true;
    });
    starts[1].reject(new Error('nats-2 exited with 1'));
    await turn();
    // nats-1 and nats-3 are still starting: not settled yet
    expect(settled).toBe(false);
    starts[0].resolve();
    await turn();
    expect(settled).toBe(false);
    starts[2].reject(new Error('nats-3 exited with 1'));
    await expect(all).rejects.toThrow('nats-2 exited with 1');
  });

  it('takes no item more once one failed, and at most `concurrency` at once', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const failure = inLanes([1, 2, 3, 4, 5, 6], 2, async (i) => {
      started.push(i);
      most = Math.max(most, ++running);
      await turn();
      running--;
      if (i === 1) throw new Error('1 failed');
    });
    await expect(failure).rejects.toThrow('1 failed');
    expect(most).toBe(2);
    expect(started).toEqual([1, 2]);
  });

  it('resolves when every item is done', async () => {
    const done: number[] = [];
    await inLanes([1, 2, 3], 8, async (i) => {
      await turn();
      done.push(i);
    });
    expect(done.sort()).toEqual([1, 2, 3]);
  });
});
