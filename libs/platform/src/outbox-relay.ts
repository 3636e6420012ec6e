import { jetstream, JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import { Logger } from 'pino';
import { eventSubject } from '@app/contracts';
import { awaitEventsStream } from './jetstream';
import { wakeOnCommittedEvents } from './events';
import { OutboxRepository } from './outbox.repository';
import { WakeablePause } from './periodic';
import { UnitOfWork } from './unit-of-work';

export interface RelayOptions {
  batchSize?: number;
  idlePollMs?: number;
}

/**
 * Publishes outbox rows to JetStream in order of writing. A row is marked published only after
 * JetStream acknowledged it, and every message carries `Nats-Msg-Id` = event id, so a relay
 * killed between the two steps republishes rows that the stream then drops as duplicates.
 * Replicas share the work with `FOR UPDATE SKIP LOCKED`.
 */
export class OutboxRelay {
  private js?: JetStreamClient;
  private running = false;
  private loop?: Promise<void>;
  private closeListener?: () => Promise<void>;
  private stopLocalWake?: () => void;
  private readonly pause = new WakeablePause();
  /** A NOTIFY came while a batch was being published: rows may wait that the batch did not see. */
  private notified = false;
  private readonly batchSize: number;
  private readonly idlePollMs: number;

  /** `uow` for its batches' transactions; `outbox` for their statements, the LISTEN connection and the sweep. */
  constructor(
    private readonly uow: UnitOfWork,
    private readonly outbox: OutboxRepository,
    private readonly nc: NatsConnection,
    private readonly log: Logger,
    options: RelayOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.idlePollMs = options.idlePollMs ?? 1000;
  }

  async start(): Promise<void> {
    // the operator provisions the stream; this relay's identity may only look it up
    await awaitEventsStream(this.nc, this.log);
    this.js = jetstream(this.nc);
    this.running = true;
    await this.listen();
    this.loop = this.run();
  }

  /**
   * Stops the loop, then publishes what the outbox still holds: the events of the last requests
   * this process answered leave with it instead of waiting for another replica's relay (or for
   * the next start when there is none).
   */
  async stop(): Promise<void> {
    this.running = false;
    this.stopLocalWake?.();
    this.pause.wake();
    await this.loop;
    await this.closeListener?.().catch(() => undefined);
    try {
      while ((await this.publishBatch()) >= this.batchSize);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'outbox relay: last batch not published, left for the next relay');
    }
  }

  /** Publishes one batch; returns how many events it published. */
  async publishBatch(): Promise<number> {
    if (!this.js) this.js = jetstream(this.nc);
    const js = this.js;
    return this.uow.run(async (tx) => {
      const rows = await this.outbox.claimBatch(tx, this.batchSize);
      if (rows.length > 0) {
        await Promise.all(rows.map((row) => js.publish(eventSubject(row.type), row.envelope, { msgID: row.id, headers: headersOf(row.trace_context) })));
        await this.outbox.markPublished(tx, rows.map((r) => r.seq));
      }
      return rows.length;
    });
  }

  private async listen(): Promise<void> {
    // events committed by this process's units of work (they send no NOTIFY while this relay runs: events.ts)
    this.stopLocalWake = wakeOnCommittedEvents(() => {
      this.notified = true;
      this.pause.wake();
    });
    try {
      this.closeListener = await this.outbox.listen(() => {
        this.notified = true;
        this.pause.wake();
      });
    } catch (err) {
      this.log.warn({ err }, 'outbox relay: LISTEN failed, falling back to polling');
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    let lastCleanup = 0;
    while (this.running) {
      let published = 0;
      this.notified = false;
      try {
        published = await this.publishBatch();
        failures = 0;
        if (Date.now() - lastCleanup > 10 * 60 * 1000) {
          lastCleanup = Date.now();
          await this.outbox.sweepPublished();
        }
      } catch (err) {
        failures++;
        this.log.warn({ err: (err as Error).message, failures }, 'outbox relay: publish failed, will retry');
      }
      // a full batch may have left rows behind; a NOTIFY during the batch announced rows committed
      // after its SELECT: either way go again now rather than at the next idle poll
      if (published >= this.batchSize || (this.notified && failures === 0)) continue;
      const wait = failures > 0 ? Math.min(200 * 2 ** failures, 5000) : this.idlePollMs;
      await this.pause.wait(wait);
    }
  }
}

/** The trace headers an event was recorded under (traceparent, Request-Id), for its consumers. */
function headersOf(carrier: Record<string, string> | null): MsgHdrs | undefined {
  if (!carrier) return undefined;
  const headers = natsHeaders();
  for (const [key, value] of Object.entries(carrier)) headers.set(key, value);
  return headers;
}
