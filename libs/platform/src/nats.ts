import { connect, ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
import { NatsConnectSettings, natsConnectOptions } from './nats-auth';

/**
 * Connection options every NATS connection of the mesh shares: reconnect for ever, every 500 ms,
 * and no Error (stack capture) built per request and per subscription timer — callers wrap
 * failures with their own context.
 */
export const NATS_CONNECTION_DEFAULTS = { maxReconnectAttempts: -1, reconnectTimeWait: 500, noAsyncTraces: true } as const;

/** The inbox prefix each connection was opened with (see inboxPrefixOf). */
const inboxPrefixes = new WeakMap<NatsConnection, string>();

/**
 * Opens a connection with the mesh's defaults and remembers its inbox prefix: under NATS
 * permissions an identity may read replies only under its own prefix (nats-auth.ts), so the
 * reply multiplexer (reply-mux.ts) subscribes there.
 */
export async function connectMesh(options: ConnectionOptions): Promise<NatsConnection> {
  const nc = await connect({ ...NATS_CONNECTION_DEFAULTS, ...options });
  if (options.inboxPrefix) inboxPrefixes.set(nc, options.inboxPrefix);
  return nc;
}

/** The inbox prefix a connection was opened with by connectMesh (undefined: nats.js's default, `_INBOX`). */
export function inboxPrefixOf(nc: NatsConnection): string | undefined {
  return inboxPrefixes.get(nc);
}

/** A connection of one identity (its seed, inbox prefix and TLS from NatsConnectSettings). */
export function connectNats(settings: NatsConnectSettings, name: string): Promise<NatsConnection> {
  return connectMesh({ ...natsConnectOptions(settings, name), waitOnFirstConnect: false });
}
