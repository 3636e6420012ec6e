import type { ConsumerMessages } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { DurableReader, REREAD_FIRST_PAUSE_MS } from './event-consumer';

/** A stand-in for nats.js's ConsumerMessages: yields `items`, then ends, or fails with `failWith`. */
function fakeMessages(items: string[], failWith?: Error): ConsumerMessages & { shut: boolean } {
  let release: (() => void) | undefined;
  const fake = {
    shut: false,
    async *[Symbol.asyncIterator]() {
      for (const item of items) yield item;
      if (failWith) throw failWith;
      // open messages wait for more until closed
      if (!fake.shut) await new Promise<void>((resolve) => (release = resolve));
    },
    close: async () => {
      fake.shut = true;
      release?.();
    },
  };
  return fake as unknown as ConsumerMessages & { shut: boolean };
}

function recordingLog(): { log: Logger; lines: { level: string; msg: string; fields: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, msg, fields });
  return { log: { error: at('error'), warn: at('warn'), info: at('info') } as unknown as Logger, lines };
}

const readAll = (seen: string[]) => async (messages: ConsumerMessages) => {
  for await (const m of messages as unknown as AsyncIterable<string>) seen.push(m);
};

const until = async (what: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('DurableReader', () => {
  it('reads the durable again when nats.js ends its messages with an error, and says so', async () => {
    const opened = [fakeMessages(['a'], new Error('heartbeats missed')), fakeMessages(['b', 'c'])];
    const seen: string[] = [];
    const { log, lines } = recordingLog();
    let opens = 0;
    const reader = new DurableReader('billing-workspaces', async () => opened[opens++], readAll(seen), log);
    await reader.start();
    await until(() => seen.length === 3);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(opens).toBe(2);
    expect(opened[0].shut).toBe(true);
    expect(lines.find((l) => l.level === 'error')).toMatchObject({ fields: { consumer: 'billing-workspaces', err: 'heartbeats missed', retry_in_ms: REREAD_FIRST_PAUSE_MS } });
    await reader.stop();
    expect(opened[1].shut).toBe(true);
  });

  it('reads again when the messages end without an error, and when its own reading of them fails', async () => {
    const opened = [fakeMessages(['a']), fakeMessages(['b'])];
    opened[0].shut = true; // ended by the server: nothing more to wait for
    const seen: string[] = [];
    const { log, lines } = recordingLog();
    let opens = 0;
    let failedOnce = false;
    const read = async (messages: ConsumerMessages) => {
      await readAll(seen)(messages);
      if (!failedOnce) {
        failedOnce = true;
        throw new Error('nak on a closed connection');
      }
    };
    const reader = new DurableReader('d', async () => opened[Math.min(opens++, 1)], read, log);
    await reader.start();
    await until(() => seen.includes('b'));
    expect(lines.filter((l) => l.level === 'error').map((l) => l.fields.err)).toEqual(['nak on a closed connection']);
    await reader.stop();
  });

  it('keeps trying to open the durable, pausing longer each time, until it opens', async () => {
    const seen: string[] = [];
    const { log, lines } = recordingLog();
    let opens = 0;
    const reader = new DurableReader('d', async () => {
      opens++;
      if (opens === 1) return fakeMessages([], new Error('consumer deleted'));
      if (opens <= 3) throw new Error('no responders');
      return fakeMessages(['x']);
    }, readAll(seen), log);
    await reader.start();
    await until(() => seen.length === 1, 5000);
    expect(opens).toBe(4);
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.fields.retry_in_ms)).toEqual([2 * REREAD_FIRST_PAUSE_MS, 4 * REREAD_FIRST_PAUSE_MS]);
    await reader.stop();
  });

  it('opens nothing more once stopped, also when stopped during its pause', async () => {
    const { log, lines } = recordingLog();
    let opens = 0;
    const reader = new DurableReader('d', async () => {
      opens++;
      return fakeMessages([], new Error('terminal'));
    }, readAll([]), log);
    await reader.start();
    // the reading failed and was logged: the reader pauses before opening again
    await until(() => lines.some((l) => l.level === 'error'));
    await reader.stop();
    await new Promise((r) => setTimeout(r, 2 * REREAD_FIRST_PAUSE_MS));
    expect(opens).toBe(1);

    // stopped while it reads: the messages are closed, the reading ends, nothing is opened again
    const open = fakeMessages(['a']);
    const second = new DurableReader('d', async () => open, readAll([]), log);
    await second.start();
    await second.stop();
    expect(open.shut).toBe(true);
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
  });

  it('opens nothing again once its connection is closed for good, and says so', async () => {
    const { log, lines } = recordingLog();
    let opens = 0;
    let closed = false;
    const reader = new DurableReader('d', async () => {
      opens++;
      return fakeMessages([], new Error('connection closed'));
    }, readAll([]), log, () => closed);
    closed = true;
    await reader.start();
    await until(() => lines.some((l) => l.level === 'error'));
    await new Promise((r) => setTimeout(r, 2 * REREAD_FIRST_PAUSE_MS));
    expect(opens).toBe(1);
    expect(lines.map((l) => l.msg)).toEqual(['event consumer: its NATS connection closed for good; the durable is no longer read']);
    await reader.stop();
  });
});
