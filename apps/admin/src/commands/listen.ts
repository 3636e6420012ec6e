import type { EventEnvelope } from '@app/contracts/events';
import type { MemberContext, MemberContextRequest } from '@app/contracts/resources/workspace';
import { SUBJECTS, workspaceEventsSubject } from '@app/contracts/subjects';
import { newSigningSecret, signatureHeader } from '@app/platform/webhook-signature';
import { required, UsageError } from '../args';
import { AdminCommand } from './command';

/** Time the receiver has to answer, as a webhook endpoint has (spec: 10 seconds). */
const FORWARD_TIMEOUT_MS = 10_000;

/** One event forwarded: what the line printed for it says. */
interface Forwarded {
  event_id: string | null;
  type: string | null;
  livemode: boolean | null;
  status: number | null;
  latency_ms: number;
  error?: string;
}

function forwardUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('--forward-to must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--forward-to must be an absolute http:// or https:// URL');
  return url;
}

/** POSTs the body exactly as received, signed now with the session's secret; never throws. */
async function forward(url: URL, body: string, secret: string): Promise<Omit<Forwarded, 'event_id' | 'type' | 'livemode'>> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'service-signature': signatureHeader(secret, body, Math.floor(Date.now() / 1000)),
        'user-agent': 'LeadIntelligence-Listen/1.0',
      },
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, latency_ms: latency() };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { status: null, latency_ms: latency(), error: cause?.code ?? cause?.message ?? (err as Error).message };
  }
}

function describe(body: string): Pick<Forwarded, 'event_id' | 'type' | 'livemode'> {
  try {
    const event = JSON.parse(body) as EventEnvelope;
    return { event_id: event.id ?? null, type: event.type ?? null, livemode: event.livemode ?? null };
  } catch {
    return { event_id: null, type: null, livemode: null };
  }
}

export const listenCommands: AdminCommand[] = [
  {
    name: 'listen',
    usage: '--workspace <ws_id> --forward-to <url>',
    summary:
      "For development: the workspace's events (live and test) as they are stored, over NATS, each body forwarded as is to a "
      + 'local URL with a Service-Signature made with a whsec_ secret printed once on the first line; then one line per event '
      + "with the receiver's status, until interrupted (the webhooks service publishes them)",
    example: 'listen --workspace ws_... --forward-to http://localhost:4242/hooks',
    flags: ['workspace', 'forward-to'],
    async run(admin, flags) {
      const workspaceId = required(flags, 'workspace');
      const url = forwardUrl(required(flags, 'forward-to'));
      // an unknown workspace is named now rather than listened to in silence
      const request: MemberContextRequest = { workspace_id: workspaceId };
      await admin.askGateway<MemberContext>(SUBJECTS.gateway.membersContext, request);
      const subscription = await admin.subscribe(workspaceEventsSubject(workspaceId));
      const secret = newSigningSecret();
      const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
      print({ object: 'listener', workspace_id: workspaceId, forward_to: url.href, secret });
      const stop = () => subscription.unsubscribe();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      let forwarded = 0;
      // one at a time, in the order they arrive
      for await (const message of subscription) {
        const body = message.string();
        const outcome = await forward(url, body, secret);
        forwarded++;
        print({ ...describe(body), ...outcome });
      }
      return { object: 'listener', workspace_id: workspaceId, stopped: true, forwarded };
    },
  },
];
