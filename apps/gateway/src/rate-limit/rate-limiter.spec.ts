import { CounterStore, RateLimiter } from './rate-limiter';

/** The shared store as the database keeps it: one count per bucket and minute, with a clock. */
class MemoryStore implements CounterStore {
  readonly counts = new Map<string, number>();
  calls = 0;
  constructor(readonly clock: { now: number }) {}
  async add(bucket: string, want: number) {
    this.calls++;
    await new Promise((r) => setImmediate(r));
    const window = Math.floor(this.clock.now / 60_000);
    const key = `${bucket}:${window}`;
    const total = (this.counts.get(key) ?? 0) + want;
    this.counts.set(key, total);
    return { window, total, resetMs: (window + 1) * 60_000 - this.clock.now };
  }
}

function setup(replicas = 1) {
  const clock = { now: 1_800_000_000_000 + 5_000 };
  const store = new MemoryStore(clock);
  const limiters = Array.from({ length: replicas }, () => new RateLimiter(store, () => clock.now));
  return { clock, store, limiters };
}

afterEach(() => jest.useRealTimers());

describe('RateLimiter', () => {
  it('admits exactly the limit in a window, one request at a time, then refuses with remaining 0', async () => {
    const { limiters: [limiter] } = setup();
    const verdicts = [];
    for (let i = 0; i < 121; i++) verdicts.push(await limiter.hit('key:a', 120));
    expect(verdicts.slice(0, 120).every((v) => v.allowed)).toBe(true);
    expect(verdicts.slice(0, 120).map((v) => v.remaining)).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
    expect(verdicts[120]).toMatchObject({ allowed: false, remaining: 0, limit: 120 });
    expect(verdicts[120].resetSeconds).toBe(55);
  });

  it('admits exactly the limit out of a concurrent burst, each remaining value once', async () => {
    const { limiters: [limiter], store } = setup();
    const verdicts = await Promise.all(Array.from({ length: 200 }, () => limiter.hit('key:a', 120)));
    const allowed = verdicts.filter((v) => v.allowed);
    expect(allowed).toHaveLength(120);
    expect(new Set(allowed.map((v) => v.remaining)).size).toBe(120);
    expect(store.calls).toBeLessThan(120);
  });

  it('admits exactly the limit out of a concurrent burst across replicas sharing the store', async () => {
    const { limiters } = setup(3);
    const verdicts = await Promise.all(Array.from({ length: 300 }, (_, i) => limiters[i % 3].hit('key:a', 120)));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(120);
  });

  it('refuses the 121st request whichever replica answers, requests alternating between two replicas at any pace', async () => {
    for (const stepMs of [0, 1, 5, 50]) {
      const { limiters, clock } = setup(2);
      const verdicts = [];
      for (let i = 0; i < 121; i++) {
        verdicts.push(await limiters[i % 2].hit('key:a', 120));
        clock.now += stepMs % 7 === 0 ? stepMs : (i % 3) * stepMs;
      }
      expect(verdicts.slice(0, 120).every((v) => v.allowed)).toBe(true);
      expect(verdicts[120]).toMatchObject({ allowed: false, remaining: 0 });
      // and the other replica refuses too
      expect(await limiters[1].hit('key:a', 120)).toMatchObject({ allowed: false, remaining: 0 });
      expect(await limiters[0].hit('key:a', 120)).toMatchObject({ allowed: false, remaining: 0 });
    }
  });

  it('asks the store at most once per request in the second half of the budget, and less in the first', async () => {
    const { limiters, store, clock } = setup(2);
    for (let i = 0; i < 1000; i++) {
      await limiters[i % 2].hit('key:a', 1000);
      clock.now += 1;
    }
    expect(store.calls).toBeLessThan(1000);
    expect(store.calls).toBeGreaterThanOrEqual(500);
  });

  it('keeps separate budgets per bucket', async () => {
    const { limiters: [limiter] } = setup();
    for (let i = 0; i < 3; i++) await limiter.hit('key:a', 3);
    expect((await limiter.hit('key:a', 3)).allowed).toBe(false);
    expect((await limiter.hit('key:b', 3)).allowed).toBe(true);
  });

  it('starts a fresh budget in the next window', async () => {
    const { limiters: [limiter], clock } = setup();
    for (let i = 0; i < 5; i++) await limiter.hit('key:a', 5);
    expect((await limiter.hit('key:a', 5)).allowed).toBe(false);
    clock.now += 55_000;
    const next = await limiter.hit('key:a', 5);
    expect(next).toMatchObject({ allowed: true, remaining: 4 });
    expect(next.resetSeconds).toBe(60);
  });

  it('leases in blocks under sustained traffic, so most requests need no round trip', async () => {
    const { limiters: [limiter], store, clock } = setup();
    for (let i = 0; i < 2000; i++) {
      await limiter.hit('key:a', 1_000_000);
      if (i % 20 === 0) clock.now += 5;
    }
    expect(store.calls).toBeLessThan(400);
  });
});
