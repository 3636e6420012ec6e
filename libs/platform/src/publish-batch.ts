import { NatsConnection, Payload, PublishOptions } from '@nats-io/transport-node';

interface Queued {
  subject: string;
  data: Payload;
  options: PublishOptions | undefined;
  failed: ((err: Error) => void) | undefined;
}

/**
 * Publishes of one connection handed to nats.js together at the end of the event-loop turn
 * (`setImmediate`), in the order they were asked. nats.js writes what was published in one
 * synchronous run as one socket write (it flushes its buffer once per microtask), so under load
 * the requests and replies of every I/O callback of a turn go out in one write instead of one
 * each. Adds at most one loop turn of latency. `NATS_COALESCE_WRITES=off` publishes at once.
 */
export class PublishBatch {
  private static readonly byConnection = new WeakMap<NatsConnection, PublishBatch>();

  /** The batch of a connection, made at its first publish. */
  static of(nc: NatsConnection): PublishBatch {
    let batch = PublishBatch.byConnection.get(nc);
    if (!batch) {
      batch = new PublishBatch(nc, process.env.NATS_COALESCE_WRITES !== 'off');
      PublishBatch.byConnection.set(nc, batch);
    }
    return batch;
  }

  private queue: Queued[] = [];
  private scheduled = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly batched: boolean,
  ) {}

  /** Publishes at the end of this turn; `failed` hears why nats.js refused it (closed connection, bad subject). */
  publish(subject: string, data: Payload, options?: PublishOptions, failed?: (err: Error) => void): void {
    if (!this.batched) return this.send({ subject, data, options, failed });
    this.queue.push({ subject, data, options, failed });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const queue = this.queue;
    this.queue = [];
    for (const item of queue) this.send(item);
  };

  private send(item: Queued): void {
    try {
      this.nc.publish(item.subject, item.data, item.options);
    } catch (err) {
      item.failed?.(err as Error);
    }
  }
}
