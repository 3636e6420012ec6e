import { ReadBatch } from './read-batch';

describe('ReadBatch', () => {
  /** A batch over keys that records each call: `one:<key>` for a read alone, the keys for one of several. */
  function recorded<K, V>(value: (key: K) => V | undefined, max?: number) {
    const calls: unknown[] = [];
    const batch = new ReadBatch<K, V>(
      async (key) => {
        calls.push(`one:${String(key)}`);
        return value(key);
      },
      async (keys) => {
        calls.push(keys);
        return keys.map(value);
      },
      max,
    );
    return { batch, calls };
  }

  it('answers the reads asked in one turn with one call, each with the value at its index', async () => {
    const { batch, calls } = recorded((k: string) => (k === 'missing' ? undefined : k.toUpperCase()));
    const values = await Promise.all(['a', 'b', 'missing', 'a'].map((k) => batch.load(k)));
    expect(values).toEqual(['A', 'B', undefined, 'A']);
    expect(calls).toEqual([['a', 'b', 'missing', 'a']]);
  });

  it('a read alone in its turn is read alone; reads asked in later turns make calls of their own', async () => {
    const { batch, calls } = recorded((k: number) => k * 2);
    expect(await batch.load(1)).toBe(2);
    expect(await Promise.all([batch.load(2), batch.load(3)])).toEqual([4, 6]);
    expect(calls).toEqual(['one:1', [2, 3]]);
  });

  it('sends at most `max` keys in one call', async () => {
    const { batch, calls } = recorded((k: number) => k, 3);
    expect(await Promise.all([1, 2, 3, 4, 5, 6, 7].map((k) => batch.load(k)))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(calls).toEqual([[1, 2, 3], [4, 5, 6], 'one:7']);
  });

  it('a failed call fails every read of it, and only those', async () => {
    let fail = true;
    const read = <T>(value: T): Promise<T> => {
      if (fail) throw new Error('connection lost');
      return Promise.resolve(value);
    };
    const batch = new ReadBatch<string, string>(read, read);
    const failed = await Promise.allSettled([batch.load('a'), batch.load('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason).toEqual(new Error('connection lost'));
    await expect(batch.load('alone')).rejects.toEqual(new Error('connection lost'));
    fail = false;
    expect(await batch.load('c')).toBe('c');
  });

  it('a key the batch answers early is given to its reader before the batch ends; a later failure fails only the others', async () => {
    let finish: (err?: Error) => void = () => undefined;
    const batch = new ReadBatch<string, string>(
      (k) => Promise.resolve(k),
      (keys, answer) => {
        answer(0, `${keys[0]}!`);
        return new Promise((resolve, reject) => (finish = (err) => (err ? reject(err) : resolve(keys.map((k) => `${k}?`)))));
      },
    );
    const first = batch.load('a');
    const second = batch.load('b');
    expect(await first).toBe('a!'); // while the batch still runs
    finish(new Error('connection lost'));
    await expect(second).rejects.toEqual(new Error('connection lost'));
    expect(await first).toBe('a!');
  });
  it('runs at most `atOnce` calls at once: keys asked meanwhile wait and go together in the call made when one ends', async () => {
    const calls: number[][] = [];
    const release: (() => void)[] = [];
    let running = 0;
    let most = 0;
    const read = async (keys: number[]) => {
      calls.push(keys);
      running++;
      most = Math.max(most, running);
      await new Promise<void>((r) => release.push(r));
      running--;
      return keys.map((k) => k * 10);
    };
    const batch = new ReadBatch<number, number>((k) => read([k]).then(([v]) => v), (keys) => read(keys), 100, 2);
    const turn = () => new Promise((r) => setImmediate(r));
    const first = [batch.load(1), batch.load(2)];
    await turn();
    const second = batch.load(3);
    await turn();
    // two calls run: the keys of later turns wait, however many turns pass
    const third = [batch.load(4), batch.load(5)];
    await turn();
    const fourth = batch.load(6);
    await turn();
    await turn();
    expect(calls).toEqual([[1, 2], [3]]);
    release.shift()?.();
    expect(await Promise.all(first)).toEqual([10, 20]);
    await turn();
    // the call that ended made room for one: the keys that waited, all in it
    expect(calls).toEqual([[1, 2], [3], [4, 5, 6]]);
    release.shift()?.();
    release.shift()?.();
    expect(await Promise.all([second, ...third, fourth])).toEqual([30, 40, 50, 60]);
    expect(most).toBe(2);
  });

  it('with a bound, still sends at most `max` keys in one call, and a failed call frees its place', async () => {
    const calls: number[][] = [];
    const batch = new ReadBatch<number, number>(
      async (k) => {
        calls.push([k]);
        if (k === 1) throw new Error('broken');
        return k;
      },
      async (keys) => {
        calls.push(keys);
        return keys;
      },
      2,
      1,
    );
    const failed = batch.load(1).catch((err: Error) => err);
    await new Promise((r) => setImmediate(r));
    const rest = [2, 3, 4].map((k) => batch.load(k));
    expect(((await failed) as Error).message).toBe('broken');
    expect(await Promise.all(rest)).toEqual([2, 3, 4]);
    expect(calls).toEqual([[1], [2, 3], [4]]);
  });
});
