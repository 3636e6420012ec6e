import { readFileSync } from 'node:fs';
import type { EntityInput } from '@app/contracts/resources/entity-input';
import type { OpportunityProfile } from '@app/contracts/resources/search';
import { SUBJECTS } from '@app/contracts/subjects';
import { operatorContext } from '../admin-context';
import { AdminError } from '../admin-error';
import { envInt } from '@app/platform/config';
import { oneOf, required } from '../args';
import { progress, progressOfFile } from '../progress';
import { IngestProvider, INGEST_PROVIDERS, JSON_PROVIDERS, parseProviderDocument, parseProviderFile } from '../ingest/connectors';
import { JSON_LINES_FILE, jsonLines } from '../ingest/json-lines';
import { AdminCommand } from './command';

/**
 * Entities per seed request (SEED_CHUNK; search takes at most 100,000), requests in flight
 * (SEED_PARALLEL), and how many times one request is asked when it gets no answer in time
 * (ADMIN_RETRIES, also for ingest batches).
 */
function loadSeedSettings(env: NodeJS.ProcessEnv = process.env): { chunk: number; parallel: number; attempts: number } {
  return { chunk: envInt(env, 'SEED_CHUNK', 2000, 1, 100_000), parallel: envInt(env, 'SEED_PARALLEL', 4, 1, 256), attempts: envInt(env, 'ADMIN_RETRIES', 5, 1, 100) };
}

/**
 * Every request of search:seed and ingest is idempotent: entities are upserted by their ext_key
 * (`seed:<n>` for generated ones, the provider's record id for ingested ones), so a chunk asked
 * again after its first answer was lost (or came too late) updates the rows it wrote, never adds
 * them twice. A retry is said on stderr, whatever stderr is.
 */
const retryNotice = (what: string) => (err: Error, attempt: number) =>
  process.stderr.write(`${what}: ${err.message}; asking again (attempt ${attempt + 1})\n`);

/**
 * `send(at)` for every `at` from `from` below `to` in steps of `step`, at most `parallel` requests in
 * flight, in order of `at`: search's replicas (and its pool) take a seed's chunks or an ingest's
 * batches in parallel.
 */
async function inFlight(from: number, to: number, step: number, parallel: number, send: (at: number) => Promise<void>): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const at = next;
      next += step;
      await send(at);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

const baseSearchCommands: AdminCommand[] = [
  {
    name: 'search:seed',
    usage: '--count <n> [--start <n>] [--if-empty true]',
    summary: 'Generated entities over the four lenses, idempotent per number; --if-empty true does nothing on a filled index (asks search)',
    example: 'search:seed --count 100000',
    flags: ['count', 'start', 'if-empty'],
    async run(admin, flags) {
      const { chunk, parallel, attempts } = loadSeedSettings();
      if (flags['if-empty'] === 'true') {
        const probe = await admin.askIdempotent<{ total: number; skipped?: boolean }>(SUBJECTS.search.seed, operatorContext(), { count: 1, if_empty: true }, attempts, retryNotice('search:seed --if-empty'));
        if (probe.skipped) return { inserted: 0, updated: 0, total: probe.total, skipped: true };
      }
      const count = Number(required(flags, 'count'));
      const start = Number(flags.start ?? 0);
      if (!Number.isInteger(count) || count < 1) throw new AdminError('--count must be a positive integer');
      if (!Number.isInteger(start) || start < 0) throw new AdminError('--start must be a non-negative integer');
      const startedAt = Date.now();
      let inserted = 0;
      let updated = 0;
      let retries = 0;
      let done = 0;
      await inFlight(start, start + count, chunk, parallel, async (at) => {
        const n = Math.min(chunk, start + count - at);
        const notice = retryNotice(`search:seed entities ${at}..${at + n - 1}`);
        const r = await admin.askIdempotent<{ inserted: number; updated: number }>(SUBJECTS.search.seed, operatorContext(), { start: at, count: n, total: false }, attempts, (err, attempt) => {
          retries++;
          notice(err, attempt);
        });
        inserted += r.inserted;
        updated += r.updated;
        done += n;
        progress('seeding', done, count, startedAt);
      });
      // the index's size is one row search keeps (not a count of the table, whose cost grows with it)
      const { total } = await admin.askIdempotent<{ total: number }>(SUBJECTS.search.seed, operatorContext(), { count_only: true }, attempts, retryNotice('search:seed total'));
      const seconds = (Date.now() - startedAt) / 1000;
      // `inserted`/`updated` as search answered them: a chunk asked again after its first answer was
      // lost counts its rows as updated (`retries` says how many requests were asked again)
      return { inserted, updated, total, seconds, per_second: Math.round(count / seconds), retries };
    },
  },
  {
    name: 'profile:set',
    usage: '--workspace <ws_id> --file <profile.json>',
    summary: "The workspace's opportunity profile {sectors, stage, amount_usd, location}, which investors' match_score uses (asks search)",
    example: 'profile:set --workspace ws_... --file profile.json',
    flags: ['workspace', 'file'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'));
      let profile: OpportunityProfile;
      try {
        profile = JSON.parse(readFileSync(required(flags, 'file'), 'utf8'));
      } catch (err) {
        throw new AdminError(`cannot read the profile: ${(err as Error).message}`);
      }
      return admin.ask<OpportunityProfile>(SUBJECTS.search.profileSet, ctx, profile);
    },
  },
];

const INGEST_BATCH = 1000;

/** One ingest batch to search, asked again when it gets no answer in time; what search answered. */
type SendBatch = (entities: EntityInput[], at: number) => Promise<void>;

export const ingestCommands: AdminCommand[] = [
  {
    name: 'ingest',
    usage: `--provider ${INGEST_PROVIDERS.join('|')} --file <path>`,
    summary: "Entities from a provider's export into the search index; a re-run updates the same entities; .jsonl/.ndjson (.gz) files are streamed (asks search; samples in apps/search/samples)",
    example: 'ingest --provider openalex --file apps/search/samples/openalex-authors.json',
    flags: ['provider', 'file'],
    async run(admin, flags) {
      const provider = oneOf('provider', required(flags, 'provider'), INGEST_PROVIDERS);
      const file = required(flags, 'file');
      const { parallel, attempts } = loadSeedSettings();
      let inserted = 0;
      let updated = 0;
      const send: SendBatch = async (entities, at) => {
        const r = await admin.askIdempotent<{ inserted: number; updated: number }>(SUBJECTS.search.ingest, operatorContext(), { entities }, attempts,
          retryNotice(`ingest ${provider} records ${at}..${at + entities.length - 1}`));
        inserted += r.inserted;
        updated += r.updated;
      };
      const records = JSON_LINES_FILE.test(file) ? await ingestLines(provider, file, parallel, send) : await ingestWhole(provider, file, parallel, send);
      return { provider, records, inserted, updated };
    },
  },
];

/** A provider's file read whole and sent in batches, SEED_PARALLEL at once as search:seed sends its chunks. */
async function ingestWhole(provider: IngestProvider, file: string, parallel: number, send: SendBatch): Promise<number> {
  let entities: EntityInput[];
  try {
    entities = parseProviderFile(provider, readFileSync(file, 'utf8'));
  } catch (err) {
    throw new AdminError(`cannot ingest ${file}: ${(err as Error).message}`);
  }
  const startedAt = Date.now();
  let done = 0;
  await inFlight(0, entities.length, INGEST_BATCH, parallel, async (at) => {
    const batch = entities.slice(at, at + INGEST_BATCH);
    await send(batch, at);
    done += batch.length;
    progress(`ingest ${provider}`, done, entities.length, startedAt);
  });
  return entities.length;
}

/**
 * A JSON Lines file (one document of the provider's format a line, as OpenAlex's snapshot holds
 * one record a line) streamed: at most SEED_PARALLEL batches in flight, the file read on only as
 * batches are answered, so memory stays that of a few batches whatever the file's size. A line
 * that cannot be read stops the ingest, naming it, after the batches in flight are answered.
 */
export async function ingestLines(provider: IngestProvider, file: string, parallel: number, send: SendBatch): Promise<number> {
  if (!JSON_PROVIDERS.includes(provider)) {
    throw new AdminError(`cannot ingest ${file}: JSON Lines are read for ${JSON_PROVIDERS.join(', ')}; ${provider} exports are XML`);
  }
  const label = `ingest ${provider}`;
  const startedAt = Date.now();
  const pending = new Set<Promise<void>>();
  let failure: unknown;
  let batch: EntityInput[] = [];
  let sent = 0;
  let done = 0;
  let read = 0;
  const flush = async () => {
    const entities = batch;
    const at = sent;
    batch = [];
    sent += entities.length;
    const request: Promise<void> = send(entities, at).then(
      () => {
        done += entities.length;
        progressOfFile(label, done, read, false, startedAt);
      },
      (err: unknown) => {
        failure ??= err;
      },
    ).finally(() => pending.delete(request));
    pending.add(request);
    while (pending.size >= parallel) await Promise.race(pending);
  };
  try {
    for await (const entry of jsonLines(file)) {
      if (failure) break;
      read = entry.read;
      let entities: EntityInput[];
      try {
        entities = parseProviderDocument(provider, entry.doc);
      } catch (err) {
        throw new Error(`line ${entry.line}: ${(err as Error).message}`);
      }
      for (const entity of entities) {
        batch.push(entity);
        if (batch.length === INGEST_BATCH) await flush();
      }
    }
    if (batch.length > 0 && !failure) await flush();
  } catch (err) {
    failure ??= new AdminError(`cannot ingest ${file}: ${(err as Error).message}`);
  }
  await Promise.all(pending);
  if (failure) throw failure;
  progressOfFile(label, done, 1, true, startedAt);
  return done;
}

/** Every search-owned admin command (registered in commands/index.ts). */
export const searchCommands: AdminCommand[] = [...baseSearchCommands, ...ingestCommands];
