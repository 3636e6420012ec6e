import { signatureHeader } from '@lead-intelligence/client';

/** Time a receiver has to answer, as a webhook endpoint has (spec: 10 seconds). */
const FORWARD_TIMEOUT_MS = 10_000;

export const USER_AGENT = 'lim/0.1.0';

/** What a forward came to: the receiver's status, or why there was none. */
export interface ForwardOutcome {
  status: number | null;
  latency_ms: number;
  error?: string;
}

/**
 * POSTs `body` exactly as given to the receiver, signed now with `secret` the way the webhooks
 * service signs a delivery (`Service-Signature`), without following redirects; never throws.
 */
export async function forward(url: URL, body: string, secret: string): Promise<ForwardOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'service-signature': signatureHeader(secret, body),
        'user-agent': USER_AGENT,
      },
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, latency_ms: latency() };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const timedOut = (err as Error).name === 'TimeoutError';
    return { status: null, latency_ms: latency(), error: timedOut ? 'timeout' : cause?.code ?? cause?.message ?? (err as Error).message };
  }
}

/** The fields of an event's envelope a line names (its body is forwarded as it is, never re-serialised). */
export function describeEvent(body: string): { event_id: string | null; type: string | null; livemode: boolean | null } {
  try {
    const event = JSON.parse(body) as { id?: string; type?: string; livemode?: boolean };
    return { event_id: event.id ?? null, type: event.type ?? null, livemode: event.livemode ?? null };
  } catch {
    return { event_id: null, type: null, livemode: null };
  }
}
