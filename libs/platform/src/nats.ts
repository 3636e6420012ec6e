import { connect, ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
import { NatsConnectSettings, natsConnectOptions } from './nats-auth';
import type { Logger } from 'pino';

/**
 * Connection options every NATS connection of the mesh shares: reconnect for ever, every 500 ms,
 * authorization failures included (`ignoreAuthErrorAbort`: nats.js otherwise gives a connection up
 * for good at its second authorization error in the process's life, so a server restarted for a
 * moment without the identity, a rollout of a new one or a wrong Secret, would leave the service
 * without its bus until restarted by hand; each refusal is logged instead: logConnectionStatus),
 * and no Error (stack capture) built per request and per subscription timer — callers wrap
 * failures with their own context.
 */
export const NATS_CONNECTION_DEFAULTS = { maxReconnectAttempts: -1, reconnectTimeWait: 500, ignoreAuthErrorAbort: true, noAsyncTraces: true } as const;

/** The inbox prefix each connection was opened with (see inboxPrefixOf). */
const inboxPrefixes = new WeakMap<NatsConnection, string>();

/**
 * Opens a connection with the mesh's defaults and remembers its inbox prefix: under NATS
 * permissions an identity may read replies only under its own prefix (nats-auth.ts), so the
 * reply multiplexer (reply-mux.ts) subscribes there.
 */
export async function connectMesh(options: ConnectionOptions, log?: Logger): Promise<NatsConnection> {
  const nc = await connect({ ...NATS_CONNECTION_DEFAULTS, ...options });
  if (options.inboxPrefix) inboxPrefixes.set(nc, options.inboxPrefix);
  if (log) logConnectionStatus(nc, options.name, log);
  return nc;
}

/**
 * What happens to a connection, in the process's log: losing and regaining its server, the
 * server's errors (a refused permission, an authorization failure while reconnecting), a slow
 * subscription, a server entering lame-duck mode, and the connection closing for good with its
 * reason. Without it a process whose connection stopped working says nothing of why (its peers
 * only see "did not answer"). nats.js's ping and reconnect-attempt events are left out.
 */
export function logConnectionStatus(nc: NatsConnection, name: string | undefined, parent: Logger): void {
  const log = parent.child({ nats_connection: name ?? 'nats' });
  void (async () => {
    for await (const status of nc.status()) {
      switch (status.type) {
        case 'disconnect':
          log.warn({ server: status.server }, 'nats: disconnected; reconnecting');
          break;
        case 'reconnect':
          log.info({ server: status.server }, 'nats: reconnected');
          break;
        case 'error':
          log.warn({ err: status.error?.message }, 'nats: the server reported an error');
          break;
        case 'ldm':
        case 'staleConnection':
        case 'forceReconnect':
          log.warn({ status: status.type }, `nats: ${status.type}`);
          break;
        case 'slowConsumer':
          log.warn({ subject: status.sub?.getSubject(), pending: status.pending }, 'nats: a subscription falls behind (slow consumer)');
          break;
        default:
          break;
      }
    }
  })().catch(() => undefined);
  nc.closed().then(
    (err) => {
      if (!err) return log.debug('nats: connection closed');
      if (!exitWhenClosedForGood) return log.error({ err: err.message }, 'nats: connection closed for good');
      log.fatal({ err: err.message }, 'nats: connection closed for good: exiting, to be started again with a new one');
      process.exit(1);
    },
    () => undefined,
  );
}

/** Whether a connection nats.js closes for good ends the process (a service started by startService). */
let exitWhenClosedForGood = false;

/**
 * From now on a service connection (connectMesh with a log) that nats.js closes for good, with an
 * error, not by the process's own close, ends the process (exit code 1), so that its supervisor
 * starts it again (Kubernetes, compose's `restart`, `npm start`; `npm run cluster` and the chaos
 * runs report the exit). The mesh's connections reconnect for ever,
 * authorization failures included (NATS_CONNECTION_DEFAULTS), so this is for what nats.js still
 * gives up on (a protocol error it cannot recover from): a process without its bus takes and
 * answers no request and publishes nothing, while its HTTP probes would go on answering. Set by
 * startService; modules a test builds keep their connections' failures to their logs.
 */
export function exitWhenBusClosedForGood(): void {
  exitWhenClosedForGood = true;
}

/** The inbox prefix a connection was opened with by connectMesh (undefined: nats.js's default, `_INBOX`). */
export function inboxPrefixOf(nc: NatsConnection): string | undefined {
  return inboxPrefixes.get(nc);
}

/**
 * A connection of one identity (its seed, inbox prefix and TLS from NatsConnectSettings); with
 * `log` (a service's, never the admin CLI's, whose stdout is its JSON answer) what happens to it
 * is logged (logConnectionStatus).
 */
export function connectNats(settings: NatsConnectSettings, name: string, log?: Logger): Promise<NatsConnection> {
  return connectMesh({ ...natsConnectOptions(settings, name), waitOnFirstConnect: false }, log);
}
