import { ApiError, newSigningSecret, StreamedEvent } from '@lead-intelligence/client';
import { listFlag, onlyFlags, ParsedArgs, receiverUrl, requiredFlag } from './args';
import { Lim, sleep } from './context';
import { describeEvent, forward } from './forward';

/** The longest wait between two tries to reconnect. */
const MAX_BACKOFF_MS = 10_000;

/**
 * `lim listen --forward-to <url> [--events a,b]`: the workspace's events in the key's mode, read
 * from `GET /events/stream`, each forwarded as its exact body to a local receiver, signed with a
 * `whsec_` secret made for this session and printed once (the first line); then one line per event
 * with the receiver's status, until interrupted. When the stream ends or breaks (the gateway
 * restarted), it reconnects with `Last-Event-ID` set to the last event forwarded, so the events
 * stored meanwhile are forwarded too, none twice. A refusal (a revoked key, a bad type) ends it.
 */
export async function listen(lim: Lim, args: ParsedArgs, globals: readonly string[]): Promise<number> {
  onlyFlags(args, [...globals, 'forward-to', 'events']);
  const url = receiverUrl(requiredFlag(args, 'forward-to'));
  const types = listFlag(args, 'events');
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const { signal } = controller;

  let stream = await lim.client.eventStream({ types, signal });
  const secret = newSigningSecret();
  lim.line({ object: 'listener', forward_to: url.href, events: types ?? ['*'], livemode: lim.livemode, secret });
  let lastEventId: string | undefined;
  let forwarded = 0;
  let failures = 0;
  for (;;) {
    try {
      for await (const event of stream as AsyncIterable<StreamedEvent>) {
        const outcome = await forward(url, event.data, secret);
        lastEventId = event.id;
        forwarded++;
        lim.line({ ...describeEvent(event.data), ...outcome });
      }
      if (signal.aborted) break;
      lim.note('the stream ended (the API restarted, or the key was revoked); reconnecting');
    } catch (err) {
      if (signal.aborted) break;
      lim.note(`the stream broke (${reason(err)}); reconnecting`);
    }
    for (;;) {
      await sleep(Math.min(1000 * 2 ** failures, MAX_BACKOFF_MS), signal);
      if (signal.aborted) break;
      try {
        stream = await lim.client.eventStream({ types, lastEventId, signal });
        failures = 0;
        lim.note(lastEventId ? `reconnected, resuming after ${lastEventId}` : 'reconnected');
        break;
      } catch (err) {
        if (signal.aborted) break;
        // the key revoked, a type or Last-Event-ID refused: trying again changes nothing
        if (err instanceof ApiError && err.status < 500 && err.status !== 429) throw err;
        failures = Math.min(failures + 1, 5);
        lim.note(`cannot reconnect yet (${reason(err)}); trying again`);
      }
    }
    if (signal.aborted) break;
  }
  lim.line({ object: 'listener', stopped: true, forwarded });
  return 0;
}

function reason(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
