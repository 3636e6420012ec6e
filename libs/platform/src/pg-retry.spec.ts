import { connectionBroke, neverApplied, onFreshConnection } from './pg-retry';

/** A pg error as node-postgres raises it: a server's SQLSTATE or a socket's code in `code`. */
const pgError = (message: string, code?: string): Error => Object.assign(new Error(message), code ? { code } : {});

const adminShutdown = () => pgError('terminating connection due to administrator command', '57P01');
const lostInFlight = () => pgError('Connection terminated unexpectedly');
const reset = () => pgError('read ECONNRESET', 'ECONNRESET');
const notQueryable = () => pgError('Client has encountered a connection error and is not queryable');
const refused = () => pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');

/**
 * A fake pool: each query takes the next outcome of a script (an error thrown, or rows), as the
 * connections the pool hands out would; `calls` counts the statements sent.
 */
class FakePool {
  calls = 0;
  constructor(private readonly script: (Error | { rows: unknown[] })[]) {}
  async query(): Promise<{ rows: unknown[] }> {
    const outcome = this.script[this.calls++];
    if (outcome === undefined) throw new Error('no more outcomes scripted');
    if (outcome instanceof Error) throw outcome;
    return outcome;
  }
}

describe('connectionBroke / neverApplied', () => {
  it.each([
    ['57P01 admin_shutdown', adminShutdown(), true, true],
    ['57P02 crash_shutdown', pgError('terminating connection because of crash of another server process', '57P02'), true, true],
    ['57P03 cannot_connect_now', pgError('the database system is starting up', '57P03'), true, true],
    ['08006 connection_failure', pgError('connection failure', '08006'), true, true],
    // the server's connection slots all taken: the connection was refused at its start, nothing ran
    ['53300 too_many_connections', pgError('sorry, too many clients already', '53300'), true, true],
    ['a connection lost with the statement in flight', lostInFlight(), true, false],
    ['ECONNRESET', reset(), true, false],
    ['a connection known gone before the statement', notQueryable(), true, true],
    ['ECONNREFUSED', refused(), true, true],
  ])('%s is a broken connection', (_name, err, broke, applied) => {
    expect(connectionBroke(err)).toBe(broke);
    expect(neverApplied(err)).toBe(applied);
  });

  it.each([
    ['a unique violation', pgError('duplicate key value violates unique constraint', '23505')],
    ['a serialization failure', pgError('could not serialize access', '40001')],
    ['a statement timeout', pgError('canceling statement due to statement timeout', '57014')],
    ['out of memory (class 53, not a refused connection)', pgError('out of memory', '53200')],
    ['a plain error', new Error('boom')],
    ['not an error', 'Connection terminated'],
  ])('%s is not', (_name, err) => {
    expect(connectionBroke(err)).toBe(false);
  });
});

describe('onFreshConnection', () => {
  const run = (pool: FakePool, idempotent: boolean) => onFreshConnection(() => pool.query(), { idempotent, pauseMs: 0 });

  it('answers the first try when it succeeds, sending the statement once', async () => {
    const pool = new FakePool([{ rows: [1] }]);
    await expect(run(pool, false)).resolves.toEqual({ rows: [1] });
    expect(pool.calls).toBe(1);
  });

  it.each([
    ['57P01', adminShutdown],
    ['a connection lost in flight', lostInFlight],
    ['ECONNRESET', reset],
    ['not queryable', notQueryable],
    ['ECONNREFUSED', refused],
  ])('tries an idempotent statement once more after %s', async (_name, failure) => {
    const pool = new FakePool([failure(), { rows: [2] }]);
    await expect(run(pool, true)).resolves.toEqual({ rows: [2] });
    expect(pool.calls).toBe(2);
  });

  it.each([
    ['57P01', adminShutdown],
    ['not queryable', notQueryable],
    ['ECONNREFUSED', refused],
  ])('tries any statement once more after %s: it surely did nothing', async (_name, failure) => {
    const pool = new FakePool([failure(), { rows: [3] }]);
    await expect(run(pool, false)).resolves.toEqual({ rows: [3] });
    expect(pool.calls).toBe(2);
  });

  it.each([
    ['a connection lost in flight', lostInFlight],
    ['ECONNRESET', reset],
  ])('never repeats a statement that is not idempotent after %s: it may have committed', async (_name, failure) => {
    const err = failure();
    const pool = new FakePool([err, { rows: [4] }]);
    await expect(run(pool, false)).rejects.toBe(err);
    expect(pool.calls).toBe(1);
  });

  it("tries once more only: a second broken connection is the caller's", async () => {
    const second = adminShutdown();
    const pool = new FakePool([adminShutdown(), second, { rows: [5] }]);
    await expect(run(pool, true)).rejects.toBe(second);
    expect(pool.calls).toBe(2);
  });

  it("never repeats a statement that failed for what it says", async () => {
    const err = pgError('duplicate key value violates unique constraint', '23505');
    const pool = new FakePool([err, { rows: [6] }]);
    await expect(run(pool, true)).rejects.toBe(err);
    expect(pool.calls).toBe(1);
  });

  it('pauses before the second try', async () => {
    const pool = new FakePool([adminShutdown(), { rows: [7] }]);
    const started = performance.now();
    await onFreshConnection(() => pool.query(), { idempotent: true, pauseMs: 60 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });
});
