import { jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos, NatsConnection } from '@nats-io/transport-node';
import { EVENTS_STREAM, EVENTS_SUBJECT_PREFIX } from '@app/contracts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Creates the EVENTS stream when missing. Its duplicate window dedupes relay retries by event id. */
export async function ensureEventsStream(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.streams.info(EVENTS_STREAM);
  } catch {
    await jsm.streams
      .add({
        name: EVENTS_STREAM,
        subjects: [`${EVENTS_SUBJECT_PREFIX}>`],
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        max_age: nanos(7 * DAY_MS),
        duplicate_window: nanos(10 * 60 * 1000),
      })
      .catch(async (err) => {
        // Another process created it meanwhile: fine as long as it exists now.
        await jsm.streams.info(EVENTS_STREAM).catch(() => {
          throw err;
        });
      });
  }
}
