import { Injectable, Logger } from '@nestjs/common';
import { DomainError } from '@app/platform';
import { EntitiesRepository } from '../entities/entities.repository';
import { EntityInput } from '../entities/entity';
import { seedEntity } from '../entities/seed';
import { sourceProblem } from '../reveals/provenance';

const SEED_BATCH = 5000;
const MAX_SEED_PER_REQUEST = 100_000;

export interface SeedRequest {
  start?: number;
  count: number;
  if_empty?: boolean;
  total?: boolean;
  count_only?: boolean;
}

export interface IngestRequest {
  entities: EntityInput[];
  /** false: the batch's index entries stay in the GIN pending lists (see IngestService.ingest). */
  merge?: boolean;
}

@Injectable()
export class IngestService {
  private readonly logger = new Logger(IngestService.name);

  constructor(private readonly entities: EntitiesRepository) {}

  async seed(body: SeedRequest) {
    // `count_only`: the index size alone (one row, EntitiesRepository.count); the admin CLI asks
    // once, after its last chunk, and the GIN pending lists its chunks left are merged then, after
    // the answer: up to gin_pending_list_limit per band index, which can take longer than the
    // caller's deadline on a busy server (searches scan what is not merged yet, and VACUUM merges too)
    if (body?.count_only) {
      const total = await this.entities.count();
      this.mergeInBackground();
      return { inserted: 0, updated: 0, total };
    }
    if (body?.if_empty) {
      const total = await this.entities.count();
      if (total > 0) return { inserted: 0, updated: 0, total, skipped: true };
    }
    const start = body?.start ?? 0;
    const count = body?.count;
    if (!Number.isInteger(start) || start < 0) throw DomainError.invalid('start', 'start must be a non-negative integer');
    if (!Number.isInteger(count) || count < 1 || count > MAX_SEED_PER_REQUEST) throw DomainError.invalid('count', `count must be 1..${MAX_SEED_PER_REQUEST}`);
    let inserted = 0;
    let updated = 0;
    for (let at = start; at < start + count; at += SEED_BATCH) {
      const batch: EntityInput[] = [];
      for (let n = at; n < Math.min(at + SEED_BATCH, start + count); n++) batch.push(seedEntity(n));
      const result = await this.entities.upsertMany(batch, { regenerable: true });
      inserted += result.inserted;
      updated += result.updated;
    }
    // a chunk of a large seed (`total: false`) leaves its index entries in the GIN pending list
    // (PostgreSQL merges it whenever it passes gin_pending_list_limit): merging after every chunk
    // of 2,000 rewrote the posting pages of every key a few entries at a time, a large part of a
    // seed's cost; the CLI's last request (`count_only`) merges what is left. Counting the index
    // reads the whole table, so such a chunk skips that too.
    if (body.total !== false) await this.entities.mergePendingIndexEntries();
    return { inserted, updated, total: body.total === false ? null : await this.entities.count() };
  }

  private merging?: Promise<void>;

  /** Merges the pending lists once at a time, not within any request's deadline. */
  private mergeInBackground(): void {
    this.merging ??= this.entities.mergePendingIndexEntries()
      .catch((err) => this.logger.warn(`merging the GIN pending lists failed: ${(err as Error).message}`))
      .finally(() => { this.merging = undefined; });
  }

  /**
   * One batch of a connector's entities. `merge: false` leaves the batch's index entries in the GIN
   * pending lists (a bulk ingest sends every batch so, then one request of no entities); an
   * ingest of no entities merges what batches left, in the background, after its answer.
   */
  async ingest(body: IngestRequest) {
    if (!Array.isArray(body?.entities) || body.entities.length > SEED_BATCH) throw DomainError.invalid('entities', `entities must be an array of at most ${SEED_BATCH}`);
    if (body.merge !== undefined && typeof body.merge !== 'boolean') throw DomainError.invalid('merge', 'merge must be a boolean');
    if (body.entities.length === 0) {
      if (body.merge !== false) this.mergeInBackground();
      return { inserted: 0, updated: 0 };
    }
    // provenance is shown to clients as it is stored: a batch with one Source that names no real
    // provider or no http(s) URL is refused whole
    body.entities.forEach((entity, i) => {
      if (!Array.isArray(entity?.sources)) throw DomainError.invalid(`entities[${i}].sources`, 'sources must be an array');
      entity.sources.forEach((source, j) => {
        const problem = sourceProblem(source);
        if (problem) throw DomainError.invalid(`entities[${i}].sources[${j}]`, problem);
      });
    });
    const result = await this.entities.upsertMany(body.entities);
    // merging after every batch rewrote the posting pages of every key of every band index a
    // few entries at a time: a bulk ingest merges once, at its end
    if (body.merge !== false) await this.entities.mergePendingIndexEntries();
    return result;
  }
}
