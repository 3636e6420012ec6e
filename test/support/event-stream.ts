import { jetstreamManager, JetStreamManager } from '@nats-io/jetstream';
import { NatsConnection } from '@nats-io/transport-node';
import type { EventEnvelope } from '@app/contracts/events';
import { EVENTS_STREAM } from '@app/contracts/subjects';
import { allowance } from './timing';

export interface StreamEvent {
  seq: number;
  subject: string;
  envelope: EventEnvelope<any>;
}

/**
 * Every message of the EVENTS stream, read one by one by sequence (works on NATS 2.9, which has
 * no multi-filter consumers). Test streams hold a few dozen events, so this stays cheap.
 */
export class EventStreamReader {
  private jsm?: JetStreamManager;
  private readonly seen: StreamEvent[] = [];
  private nextSeq: number;

  /** `after`: the events up to this sequence are not read (a shared mesh's earlier files': TestMesh.eventsAfter). */
  constructor(
    private readonly nc: NatsConnection,
    after = 0,
  ) {
    this.nextSeq = after + 1;
  }

  async all(): Promise<StreamEvent[]> {
    this.jsm ??= await jetstreamManager(this.nc);
    let last = 0;
    try {
      last = (await this.jsm.streams.info(EVENTS_STREAM)).state.last_seq;
    } catch {
      return [...this.seen]; // not created yet
    }
    for (; this.nextSeq <= last; this.nextSeq++) {
      const msg = await this.jsm.streams.getMessage(EVENTS_STREAM, { seq: this.nextSeq }).catch(() => null);
      if (msg) this.seen.push({ seq: msg.seq, subject: msg.subject, envelope: msg.json<EventEnvelope<any>>() });
    }
    return [...this.seen];
  }

  /** Waits until the stream holds an event that matches, then returns it. */
  async waitFor(match: (event: StreamEvent) => boolean, timeoutMs = allowance(10_000)): Promise<StreamEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await this.all()).find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching event in ${EVENTS_STREAM} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
