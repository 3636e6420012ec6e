import { ConfigError, eventRetrySettings, eventsStreamSettings } from './config';
import { retryDelayMs, serverMaxDeliver } from './dead-letters';

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
