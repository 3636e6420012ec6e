import { ReadBatch } from './read-batch';

describe('ReadBatch', () => {
  it('answers the reads asked in one turn with one call, each with the value at its index', async () => {
    const calls: string[][] = [];
    const batch = new ReadBatch<string, string>(async (keys) => {
      calls.push(keys);
      return keys.map((k) => (k === 'missing' ? undefined : k.toUpperCase()));
    });
    const values = await Promise.all(['a', 'b', 'missing', 'a'].map((k) => batch.load(k)));
    expect(values).toEqual(['A', 'B', undefined, 'A']);
    expect(calls).toEqual([['a', 'b', 'missing', 'a']]);
  });

  it('reads asked in later turns make calls of their own', async () => {
    const calls: number[][] = [];
    const batch = new ReadBatch<number, number>(async (keys) => {
      calls.push(keys);
      return keys.map((k) => k * 2);
    });
    expect(await batch.load(1)).toBe(2);
    expect(await Promise.all([batch.load(2), batch.load(3)])).toEqual([4, 6]);
    expect(calls).toEqual([[1], [2, 3]]);
  });

  it('sends at most `max` keys in one call', async () => {
    const calls: number[][] = [];
    const batch = new ReadBatch<number, number>(async (keys) => {
      calls.push(keys);
      return keys;
    }, 3);
    expect(await Promise.all([1, 2, 3, 4, 5, 6, 7].map((k) => batch.load(k)))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(calls).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it('a failed call fails every read of it, and only those', async () => {
    let fail = true;
    const batch = new ReadBatch<string, string>((keys) => {
      if (fail) throw new Error('connection lost');
      return Promise.resolve(keys);
    });
    const failed = await Promise.allSettled([batch.load('a'), batch.load('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason).toEqual(new Error('connection lost'));
    fail = false;
    expect(await batch.load('c')).toBe('c');
  });
});
