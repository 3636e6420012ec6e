import { jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos, NatsConnection } from '@nats-io/transport-node';
import { EVENTS_STREAM, EVENTS_SUBJECT_PREFIX } from '@app/contracts';
import { EventsStreamSettings, eventsStreamSettings } from './config';
import { rootLogger } from './logger';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates the EVENTS stream when missing, with the replicas and byte cap of the settings; an
 * existing stream whose replicas or cap differ is updated to them. Its duplicate window dedupes
 * relay retries by event id.
 */
export async function ensureEventsStream(nc: NatsConnection, settings: EventsStreamSettings = eventsStreamSettings()): Promise<void> {
  const jsm = await jetstreamManager(nc);
  let existing;
  try {
    existing = await jsm.streams.info(EVENTS_STREAM);
  } catch {
    await jsm.streams
      .add({
        name: EVENTS_STREAM,
        subjects: [`${EVENTS_SUBJECT_PREFIX}>`],
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        max_age: nanos(7 * DAY_MS),
        duplicate_window: nanos(10 * 60 * 1000),
        num_replicas: settings.replicas,
        max_bytes: settings.maxBytes,
      })
      .catch(async (err) => {
        // Another process created it meanwhile: fine as long as it exists now.
        await jsm.streams.info(EVENTS_STREAM).catch(() => {
          throw err;
        });
      });
    return;
  }
  const { config } = existing;
  if (config.num_replicas === settings.replicas && config.max_bytes === settings.maxBytes) return;
  await jsm.streams.update(EVENTS_STREAM, { ...config, num_replicas: settings.replicas, max_bytes: settings.maxBytes }).catch((err) => {
    // e.g. more replicas than a single server has: the stream goes on as it is, and the log says why
    rootLogger().warn(
      { err: (err as Error).message, replicas: config.num_replicas, max_bytes: config.max_bytes, wanted: settings },
      'EVENTS stream: the server refused the configured replicas or byte cap',
    );
  });
}
