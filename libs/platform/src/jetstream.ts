import { jetstreamManager, RetentionPolicy, StorageType, StreamConfig } from '@nats-io/jetstream';
import { connect, ConnectionOptions, nanos, NatsConnection } from '@nats-io/transport-node';
import { Logger } from 'pino';
import { EVENTS_STREAM, EVENTS_SUBJECT_PREFIX } from '@app/contracts/subjects';
import { EventsStreamSettings, eventsStreamSettings } from './config';
import { rootLogger } from './logger';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Where each process that starts a mesh provisions the bus, said in the log of a service that waits for it. */
export const PROVISION_BUS_HINT =
  'the operator provisions it before the services start: `npm run migrate -- bus` (node dist/tools/migrate.js bus, as the operator\'s NATS identity); ' +
  'npm start, the tests, the compose migrate-bus step and the Kubernetes gateway-migrate Job run it first';

/**
 * The EVENTS stream as the mesh declares it: every event subject, kept 7 days, with a duplicate
 * window that dedupes relay retries by event id; the replicas and byte cap of the settings.
 */
export function eventsStreamConfig(settings: EventsStreamSettings): Partial<StreamConfig> & { name: string; subjects: string[] } {
  return {
    name: EVENTS_STREAM,
    subjects: [`${EVENTS_SUBJECT_PREFIX}>`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_age: nanos(7 * DAY_MS),
    duplicate_window: nanos(10 * 60 * 1000),
    num_replicas: settings.replicas,
    max_bytes: settings.maxBytes,
  };
}

export type ProvisionOutcome = 'created' | 'updated' | 'unchanged' | 'refused';

/**
 * Provisions the EVENTS stream; only the operator's identity may (no service may create, update,
 * delete or purge a stream: libs/platform/src/nats-auth.ts). Creates it when missing; an existing
 * one whose subjects, age, duplicate window, replicas or byte cap differ from the declaration is
 * brought back to it. An update the server refuses (more replicas than the cluster has) leaves
 * the stream as it is, and the log says why.
 */
export async function provisionEventsStream(
  nc: NatsConnection,
  settings: EventsStreamSettings = eventsStreamSettings(),
  log: Logger = rootLogger(),
): Promise<ProvisionOutcome> {
  const jsm = await jetstreamManager(nc);
  const wanted = eventsStreamConfig(settings);
  let existing;
  try {
    existing = await jsm.streams.info(EVENTS_STREAM);
  } catch {
    try {
      await jsm.streams.add(wanted);
      return 'created';
    } catch (err) {
      // another provisioning run created it meanwhile: compare with that one
      existing = await jsm.streams.info(EVENTS_STREAM).catch(() => {
        throw err;
      });
    }
  }
  const { config } = existing;
  const same =
    [...config.subjects].sort().join(' ') === [...wanted.subjects].sort().join(' ') &&
    config.max_age === wanted.max_age &&
    config.duplicate_window === wanted.duplicate_window &&
    config.num_replicas === wanted.num_replicas &&
    config.max_bytes === wanted.max_bytes;
  if (same) return 'unchanged';
  try {
    await jsm.streams.update(EVENTS_STREAM, { ...config, ...wanted });
    return 'updated';
  } catch (err) {
    log.warn(
      { err: (err as Error).message, subjects: config.subjects, replicas: config.num_replicas, max_bytes: config.max_bytes, wanted: settings },
      'EVENTS stream: the server refused the declared settings; the stream stays as it is',
    );
    return 'refused';
  }
}

/**
 * Connects with `connection` (the operator's identity), provisions the EVENTS stream and closes.
 * Retries for up to `waitMs` while the server does not answer or JetStream cannot create the
 * stream yet (a cluster that has not elected its JetStream leader); the last error after that.
 */
export async function provisionEventsStreamAt(
  connection: ConnectionOptions,
  settings: EventsStreamSettings = eventsStreamSettings(),
  options: { waitMs?: number; log?: Logger } = {},
): Promise<ProvisionOutcome> {
  const deadline = Date.now() + (options.waitMs ?? 60_000);
  for (;;) {
    let nc: NatsConnection | undefined;
    try {
      nc = await connect({ ...connection, name: connection.name ?? 'provision-bus', reconnect: false, timeout: 5000 });
      return await provisionEventsStream(nc, settings, options.log);
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await nc?.close().catch(() => undefined);
    }
  }
}

/**
 * What a service does instead of creating the stream: it waits until the EVENTS stream exists
 * (STREAM.INFO, the one stream call its identity may make), saying in its log every
 * `reportEveryMs` why it waits and who provisions the stream. Its start-up, and with it its
 * readiness, waits too. Throws only when the connection closes.
 */
export async function awaitEventsStream(
  nc: NatsConnection,
  log: Logger,
  options: { retryMs?: number; reportEveryMs?: number } = {},
): Promise<void> {
  const retryMs = options.retryMs ?? 1000;
  const reportEveryMs = options.reportEveryMs ?? 10_000;
  const since = Date.now();
  let reportedAt: number | undefined;
  for (;;) {
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.info(EVENTS_STREAM);
      if (reportedAt !== undefined) log.info({ waited_ms: Date.now() - since }, 'EVENTS stream found: going on');
      return;
    } catch (err) {
      if (nc.isClosed()) throw err;
      if (reportedAt === undefined || Date.now() - reportedAt >= reportEveryMs) {
        reportedAt = Date.now();
        log.warn(
          { err: (err as Error).message, waited_ms: reportedAt - since },
          `waiting for the EVENTS stream: a service does not create it; ${PROVISION_BUS_HINT}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}
