import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/platform';
import { EntitiesRepository } from '../entities/entities.repository';
import { EntityInput } from '../entities/entity';
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
  /**
   * Sent as false by the admin CLI before the rank bands were deleted (their GIN pending lists were
   * merged once, after a bulk ingest): still taken, a boolean, and nothing is left to merge.
   */
  merge?: boolean;
}

@Injectable()
export class IngestService {
  constructor(private readonly entities: EntitiesRepository) {}

  async seed(body: SeedRequest) {
    // `count_only`: the index size alone (one row, EntitiesRepository.count); the admin CLI asks
    // once, after its last chunk
    if (body?.count_only) return { inserted: 0, updated: 0, total: await this.entities.count() };
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
      const result = await this.entities.seedRange(at, Math.min(SEED_BATCH, start + count - at));
      inserted += result.inserted;
      updated += result.updated;
    }
    // a chunk of a large seed (`total: false`) is answered without the index's size: the CLI asks
    // for it once, after its last chunk (`count_only`)
    return { inserted, updated, total: body.total === false ? null : await this.entities.count() };
  }

  /** One batch of a connector's entities (a batch of none writes nothing). */
  async ingest(body: IngestRequest) {
    if (!Array.isArray(body?.entities) || body.entities.length > SEED_BATCH) throw DomainError.invalid('entities', `entities must be an array of at most ${SEED_BATCH}`);
    if (body.merge !== undefined && typeof body.merge !== 'boolean') throw DomainError.invalid('merge', 'merge must be a boolean');
    if (body.entities.length === 0) return { inserted: 0, updated: 0 };
    // provenance is shown to clients as it is stored: a batch with one Source that names no real
    // provider or no http(s) URL is refused whole
    body.entities.forEach((entity, i) => {
      if (!Array.isArray(entity?.sources)) throw DomainError.invalid(`entities[${i}].sources`, 'sources must be an array');
      entity.sources.forEach((source, j) => {
        const problem = sourceProblem(source);
        if (problem) throw DomainError.invalid(`entities[${i}].sources[${j}]`, problem);
      });
    });
    return this.entities.upsertMany(body.entities);
  }
}
