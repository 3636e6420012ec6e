import { Gate } from './gate';

describe('Gate', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('runs at most `limit` at once, the others in the order they came, and frees a place on failure', async () => {
    const gate = new Gate(2);
    const started: number[] = [];
    const finish = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
    const runs = [1, 2, 3, 4].map((n) =>
      gate.run(() => new Promise<number>((resolve, reject) => {
        started.push(n);
        finish.set(n, { resolve: () => resolve(n), reject });
      })));
    const settled = Promise.allSettled(runs);
    await tick();
    expect(started).toEqual([1, 2]);
    finish.get(2)!.reject(new Error('failed'));
    await tick();
    expect(started).toEqual([1, 2, 3]);
    finish.get(1)!.resolve();
    await tick();
    expect(started).toEqual([1, 2, 3, 4]);
    finish.get(3)!.resolve();
    finish.get(4)!.resolve();
    expect(await settled).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: new Error('failed') },
      { status: 'fulfilled', value: 3 },
      { status: 'fulfilled', value: 4 },
    ]);
    // every place is free again
    const again: number[] = [];
    await Promise.all([5, 6].map((n) => gate.run(async () => again.push(n))));
    expect(again).toEqual([5, 6]);
  });
});
