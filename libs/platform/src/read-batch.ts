interface Waiting<K, V> {
  key: K;
  resolve: (value: V | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * Point reads asked in one turn of the event loop, answered together at its end (`setImmediate`)
 * by one call of `readMany`: under load, the requests that reach a process in one I/O callback
 * share one PostgreSQL round trip (and, answered in the same turn, one NATS write: PublishBatch)
 * instead of one each. A read asked alone is read alone. Adds at most one loop turn of latency.
 * At most `max` keys go to one call; a failed call fails every read of it not answered yet.
 * `readMany` may answer a key before the others (`answer(i, value)`, e.g. as its rows stream in):
 * its reader goes on at once instead of waiting for the whole batch.
 * At most `atOnce` calls run at once (default: no bound): keys asked while that many run wait and
 * go together in the call made when one of them ends, so that the reads keep to as many database
 * connections (search's pages: SEARCH_PAGE_READS_AT_ONCE).
 */
export class ReadBatch<K, V> {
  private waiting: Waiting<K, V>[] = [];
  private scheduled = false;
  private running = 0;

  /**
   * `readOne(key)` reads a key asked alone in its turn; `readMany(keys, answer)` gives the value of
   * each key at the same index (undefined: none), and may give a key's early by `answer(i, value)`
   * (what it returns for that key is then not used).
   */
  constructor(
    private readonly readOne: (key: K) => Promise<V | undefined>,
    private readonly readMany: (keys: K[], answer: (i: number, value: V | undefined) => void) => Promise<(V | undefined)[]>,
    private readonly max = 100,
    private readonly atOnce = Infinity,
  ) {}

  load(key: K): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      if (this.waiting.length >= this.max) this.dispatch();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    this.dispatch();
  };

  private dispatch(): void {
    // at the bound, the call that ends next takes them (done)
    while (this.waiting.length > 0 && this.running < this.atOnce) this.call(this.waiting.splice(0, this.max));
  }

  private call(batch: Waiting<K, V>[]): void {
    this.running++;
    let read: Promise<(V | undefined)[]>;
    try {
      read = batch.length === 1
        ? this.readOne(batch[0].key).then((value) => [value])
        : this.readMany(batch.map((w) => w.key), (i, value) => batch[i]?.resolve(value));
    } catch (err) {
      read = Promise.reject(err);
    }
    read.then(
      (values) => batch.forEach((w, i) => w.resolve(values[i])),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    ).finally(this.done);
  }

  private readonly done = (): void => {
    this.running--;
    this.dispatch();
  };
}
