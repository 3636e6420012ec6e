import { JsMsg } from '@nats-io/jetstream';
import { Logger } from 'pino';
import { EventEnvelope } from '@app/contracts';
import { ConfigError, eventRetrySettings, eventsStreamSettings } from './config';
import { DeadEventsRepository } from './dead-events.repository';
import { DeadLetters, retryDelayMs, serverMaxDeliver } from './dead-letters';

describe('event retry and stream settings', () => {
  it('defaults to 8 deliveries with a growing backoff, one replica and no byte cap', () => {
    expect(eventRetrySettings({})).toEqual({ maxDeliver: 8, backoffMs: [1000, 5000, 30_000, 120_000, 600_000] });
    expect(eventsStreamSettings({})).toEqual({ replicas: 1, maxBytes: -1 });
  });

  it('reads EVENT_MAX_DELIVER, EVENT_BACKOFF and the stream settings', () => {
    expect(eventRetrySettings({ EVENT_MAX_DELIVER: '3', EVENT_BACKOFF: '250ms, 2s,1m,1h' })).toEqual({ maxDeliver: 3, backoffMs: [250, 2000, 60_000, 3_600_000] });
    expect(eventsStreamSettings({ EVENTS_STREAM_REPLICAS: '3', EVENTS_STREAM_MAX_BYTES: '10737418240' })).toEqual({ replicas: 3, maxBytes: 10_737_418_240 });
  });

  it.each([
    [{ EVENT_MAX_DELIVER: '0' }, /EVENT_MAX_DELIVER must be an integer from 1 to 1000, got "0"/],
    [{ EVENT_MAX_DELIVER: 'many' }, /EVENT_MAX_DELIVER/],
    [{ EVENT_BACKOFF: '5' }, /EVENT_BACKOFF must be a comma-separated list of durations/],
    [{ EVENT_BACKOFF: '1s,,2s' }, /EVENT_BACKOFF/],
    [{ EVENT_BACKOFF: '0s' }, /EVENT_BACKOFF/],
    [{ EVENT_BACKOFF: '25h' }, /at most 24h/],
  ])('refuses %j', (env, message) => {
    expect(() => eventRetrySettings(env)).toThrow(ConfigError);
    expect(() => eventRetrySettings(env)).toThrow(message);
  });

  it.each([[{ EVENTS_STREAM_REPLICAS: '0' }], [{ EVENTS_STREAM_REPLICAS: '6' }], [{ EVENTS_STREAM_MAX_BYTES: '-2' }], [{ EVENTS_STREAM_MAX_BYTES: '1GB' }]])(
    'refuses the stream setting %j',
    (env) => {
      expect(() => eventsStreamSettings(env)).toThrow(ConfigError);
    },
  );

  it('waits the n-th backoff after the n-th failed delivery, the last one after that; the server allows one delivery more', () => {
    const settings = { maxDeliver: 5, backoffMs: [100, 200] };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(settings, n))).toEqual([100, 200, 200, 200]);
    expect(serverMaxDeliver(settings)).toBe(6);
  });
});

/**
 * DeadLetters with its store (DeadEventsRepository) replaced by an in-memory one and JetStream
 * messages by recorders of nak/term: when an event is retried, stored, terminated and replayed.
 * The real store runs in test/outbox/event-consumer.integration-spec.ts and the dead-letters e2e.
 */
describe('DeadLetters (in-memory store)', () => {
  const settings = { maxDeliver: 3, backoffMs: [100, 200] };
  const event = { id: 'evt_1', type: 'lead.created' } as EventEnvelope;
  const log = { warn: () => undefined, error: () => undefined, info: () => undefined } as unknown as Logger;

  function setup(options: { storeFails?: boolean } = {}) {
    const rows = new Map<string, { consumer: string; event_id: string; envelope: EventEnvelope; last_error: string; attempts: number }>();
    const store = {
      store: async (consumer: string, envelope: EventEnvelope, lastError: string, attempts: number) => {
        if (options.storeFails) throw new Error('database down');
        const earlier = rows.get(`${consumer}/${envelope.id}`);
        rows.set(`${consumer}/${envelope.id}`, { consumer, event_id: envelope.id, envelope, last_error: lastError, attempts: attempts + (earlier?.attempts ?? 0) });
      },
      chosen: async (eventId: string | undefined) => [...rows.values()].filter((r) => eventId === undefined || r.event_id === eventId),
      recordFailure: async (consumer: string, eventId: string, error: string) => {
        const row = rows.get(`${consumer}/${eventId}`)!;
        rows.set(`${consumer}/${eventId}`, { ...row, last_error: error, attempts: row.attempts + 1 });
      },
      remove: async (consumer: string, eventId: string) => void rows.delete(`${consumer}/${eventId}`),
    };
    const letters = new DeadLetters('crm', store as unknown as DeadEventsRepository, log, settings);
    const message = (deliveryCount: number) => {
      const seen: string[] = [];
      const msg = { info: { deliveryCount }, nak: (delay?: number) => seen.push(`nak ${delay}`), term: () => seen.push('term') } as unknown as JsMsg;
      return { msg, seen };
    };
    return { letters, rows, message };
  }

  it('before the last delivery a failure is retried after the backoff and nothing is stored', async () => {
    const { letters, rows, message } = setup();
    const { msg, seen } = message(2);
    await letters.failed(msg, event, 'crm-consumer', new Error('boom'));
    expect(seen).toEqual(['nak 200']);
    expect(rows.size).toBe(0);
  });

  it('the last delivery\'s failure stores the event with its error and attempts, and terminates it', async () => {
    const { letters, rows, message } = setup();
    const { msg, seen } = message(3);
    await letters.failed(msg, event, 'crm-consumer', new Error('boom'));
    expect(seen).toEqual(['term']);
    expect([...rows.values()]).toEqual([{ consumer: 'crm-consumer', event_id: 'evt_1', envelope: event, last_error: 'boom', attempts: 3 }]);
  });

  it('a delivery past the handler\'s tries is stored as ended without an outcome; a store that fails naks instead of dropping it', async () => {
    const ok = setup();
    const past = ok.message(4);
    await expect(ok.letters.overLimit(past.msg, event, 'crm-consumer')).resolves.toBe(true);
    expect(past.seen).toEqual(['term']);
    expect([...ok.rows.values()][0].last_error).toMatch(/without an outcome/);
    const down = setup({ storeFails: true });
    const last = down.message(3);
    await down.letters.failed(last.msg, event, 'crm-consumer', new Error('boom'));
    expect(last.seen).toEqual(['nak 200']);
  });

  it('a replay runs the consumer\'s apply: a success leaves the store, a failure stays with its new error', async () => {
    const { letters, rows, message } = setup();
    await letters.failed(message(3).msg, event, 'crm-consumer', new Error('boom'));
    await letters.failed(message(3).msg, { ...event, id: 'evt_2' } as EventEnvelope, 'crm-consumer', new Error('boom'));
    letters.register('crm-consumer', async (e) => {
      if (e.id === 'evt_2') throw new Error('still broken');
    });
    await expect(letters.replay(undefined)).resolves.toEqual({
      replayed: [{ consumer: 'crm-consumer', event_id: 'evt_1' }],
      failed: [{ consumer: 'crm-consumer', event_id: 'evt_2', error: 'still broken' }],
    });
    expect([...rows.values()].map((r) => [r.event_id, r.last_error, r.attempts])).toEqual([['evt_2', 'still broken', 4]]);
  });
});
