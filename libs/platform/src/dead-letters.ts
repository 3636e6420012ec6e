import { JsMsg } from '@nats-io/jetstream';
import { Logger } from 'pino';
import { DeadEvent, EventEnvelope, ReplayDeadEventsResult, ServiceName } from '@app/contracts';
import { EventRetrySettings } from './config';
import { DeadEventsRepository } from './dead-events.repository';
import { counter, gauge } from './metrics';

/** The wait before the delivery after the `deliveryCount`-th (1-based) failed. */
export function retryDelayMs(settings: EventRetrySettings, deliveryCount: number): number {
  return settings.backoffMs[Math.min(Math.max(deliveryCount, 1), settings.backoffMs.length) - 1];
}

/**
 * The consumer's `max_deliver` on the server: one more than the handler's tries, so an event
 * whose last try never ended (the process died, the handler outlived `ack_wait`) comes back once
 * more and is stored as dead instead of being dropped by the server unseen.
 */
export const serverMaxDeliver = (settings: EventRetrySettings): number => settings.maxDeliver + 1;

/** Applies one event as the consumer would: idempotent through the processed-ids table. */
export type ApplyEvent = (event: EventEnvelope) => Promise<void>;

const MAX_ERROR_LENGTH = 2000;
const NO_OUTCOME = 'the last delivery ended without an outcome (the process stopped or the handler outlived ack_wait)';

const deadLettered = counter('events_dead_letter_total', 'Events a durable consumer gave up on and stored in dead_events', ['consumer']);

/**
 * What a durable consumer does with an event it could not handle: retry it later (a nak with the
 * backoff's delay, so the events behind it go on meanwhile), or after the last delivery store it
 * in `dead_events` with its error and terminate it. The operator lists and replays the store over
 * NATS (`<service>.events.dead`, `<service>.events.replay`); a replay runs the consumer's own
 * apply function, so an event already processed is not handled twice.
 */
export class DeadLetters {
  private readonly appliers = new Map<string, ApplyEvent>();

  constructor(
    private readonly service: ServiceName,
    private readonly deadEvents: DeadEventsRepository,
    private readonly log: Logger,
    readonly settings: EventRetrySettings,
  ) {}

  /** Makes `durable`'s dead events replayable in this process. */
  register(durable: string, apply: ApplyEvent): void {
    this.appliers.set(durable, apply);
  }

  /**
   * Whether a delivery is one past the handler's tries (the last one ended without an outcome):
   * then it is stored as dead and terminated here, not handled again.
   */
  async overLimit(message: JsMsg, event: EventEnvelope, durable: string): Promise<boolean> {
    if (message.info.deliveryCount <= this.settings.maxDeliver) return false;
    await this.failed(message, event, durable, NO_OUTCOME);
    return true;
  }

  /** The handler failed on this delivery: retry after the backoff, or store the event as dead. */
  async failed(message: JsMsg, event: EventEnvelope, durable: string, error: unknown): Promise<void> {
    const attempts = message.info.deliveryCount;
    const reason = describe(error);
    if (attempts < this.settings.maxDeliver) {
      const delay = retryDelayMs(this.settings, attempts);
      this.log.warn({ err: reason, event_id: event.id, consumer: durable, attempts, retry_in_ms: delay }, 'event consumer: handling failed, redelivering');
      message.nak(delay);
      return;
    }
    try {
      await this.deadEvents.store(durable, event, reason, attempts);
    } catch (storeErr) {
      // the database is down: the server redelivers once more (serverMaxDeliver), stored then if it is back
      this.log.error({ err: (storeErr as Error).message, event_id: event.id, consumer: durable }, 'event consumer: could not store a dead event');
      message.nak(retryDelayMs(this.settings, attempts));
      return;
    }
    message.term();
    deadLettered.inc({ consumer: durable });
    this.log.error({ err: reason, event_id: event.id, type: event.type, consumer: durable, attempts }, 'event consumer: event stored in dead_events after its last delivery failed');
  }

  /** The oldest dead events first. */
  async list(limit: number): Promise<DeadEvent[]> {
    const rows = await this.deadEvents.list(limit);
    return rows.map((r) => ({
      service: this.service,
      consumer: r.consumer,
      event_id: r.event_id,
      type: r.type,
      last_error: r.last_error,
      attempts: r.attempts,
      first_failed_at: r.first_failed_at.toISOString(),
      last_failed_at: r.last_failed_at.toISOString(),
      envelope: r.envelope,
    }));
  }

  /**
   * Runs each chosen dead event through its consumer's apply function; a success removes it from
   * the store, a failure stays there with its new error.
   */
  async replay(eventId: string | undefined): Promise<ReplayDeadEventsResult> {
    const rows = await this.deadEvents.chosen(eventId);
    const result: ReplayDeadEventsResult = { replayed: [], failed: [] };
    for (const row of rows) {
      const apply = this.appliers.get(row.consumer);
      try {
        if (!apply) throw new Error(`no consumer ${row.consumer} runs in the ${this.service} service`);
        await apply(row.envelope);
      } catch (err) {
        const error = describe(err);
        await this.deadEvents.recordFailure(row.consumer, row.event_id, error);
        result.failed.push({ consumer: row.consumer, event_id: row.event_id, error });
        continue;
      }
      await this.deadEvents.remove(row.consumer, row.event_id);
      result.replayed.push({ consumer: row.consumer, event_id: row.event_id });
      this.log.info({ event_id: row.event_id, consumer: row.consumer }, 'event consumer: dead event replayed');
    }
    return result;
  }

  /** Rows waiting in the store per consumer, read when Prometheus scrapes. */
  observe(): void {
    const { deadEvents, appliers } = this;
    gauge('events_dead_letter_waiting', 'Events waiting in dead_events for a replay', ['consumer'], async function collect() {
      try {
        const rows = await deadEvents.waitingByConsumer();
        this.reset();
        for (const consumer of appliers.keys()) this.set({ consumer }, 0);
        for (const row of rows) this.set({ consumer: row.consumer }, row.n);
      } catch {
        // the database is down: readiness says so; the last values stand
      }
    });
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}
