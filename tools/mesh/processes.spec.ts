import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { inLanes, readyWithinMs, ROOT, SEARCH_STARTUP_MS } from './processes';

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

describe('readyWithinMs (how long npm start and the cluster shape wait for a service to answer ready)', () => {
  it("gives search what its k8s startupProbe allows, whatever the others get, and every other service what the caller gives", () => {
    const deployment = parse(readFileSync(join(ROOT, 'k8s/services/search/deployment.yaml'), 'utf8'));
    const probe = deployment.spec.template.spec.containers.find((c: { name: string }) => c.name === 'search').startupProbe;
    expect(SEARCH_STARTUP_MS).toBe(probe.periodSeconds * probe.failureThreshold * 1000);
    expect(readyWithinMs('search', 60_000)).toBe(SEARCH_STARTUP_MS);
    expect(readyWithinMs('search', 400_000)).toBe(400_000);
    expect(readyWithinMs('gateway', 60_000)).toBe(60_000);
    expect(readyWithinMs('billing', 180_000)).toBe(180_000);
  });
});
