import { Controller, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CompanyFact, MatchOrganizationRequest, OpportunityProfile, RpcRequest, SearchRequest, SUBJECTS } from '@app/contracts';
import { DomainError, runPeriodically, unpack } from '@app/platform';
import { EntitiesRepository } from './entities/entities.repository';
import { EntityInput } from './entities/entity';
import { seedEntity } from './entities/seed';
import { companyFactsOf, sourceProblem } from './reveals/provenance';
import { RevealsService } from './reveals/reveals.service';
import { SearchService } from './search.service';

const SEED_BATCH = 5000;
const MAX_SEED_PER_REQUEST = 100_000;

@Controller()
export class SearchController implements OnApplicationBootstrap, OnApplicationShutdown {
  private stopRetries?: () => void;

  constructor(
    private readonly search: SearchService,
    private readonly entities: EntitiesRepository,
    private readonly reveals: RevealsService,
  ) {}

  onApplicationBootstrap(): void {
    this.stopRetries = runPeriodically(() => this.search.retryRefunds(), Number(process.env.SEARCH_REFUND_RETRY_MS || 5000));
  }

  onApplicationShutdown(): void {
    this.stopRetries?.();
  }

  @MessagePattern(SUBJECTS.search.revealsCreate)
  reveal(@Payload() message: RpcRequest<{ entity_id: string }>) {
    const { ctx, body } = unpack(message);
    return this.reveals.create(ctx, body);
  }

  @MessagePattern(SUBJECTS.search.query)
  query(@Payload() message: RpcRequest<SearchRequest>) {
    const { ctx, body } = unpack(message);
    return this.search.search(ctx, body);
  }

  @MessagePattern(SUBJECTS.search.profileSet)
  profile(@Payload() message: RpcRequest<OpportunityProfile>) {
    const { ctx, body } = unpack(message);
    return this.search.setProfile(ctx, body);
  }

  /** Operator: generated entities `start .. start+count-1` (deterministic: re-seeding updates). */
  @MessagePattern(SUBJECTS.search.seed)
  async seed(@Payload() message: RpcRequest<{ start?: number; count: number; if_empty?: boolean; total?: boolean; count_only?: boolean }>) {
    const { body } = unpack(message);
    // `count_only`: the index size alone; the admin CLI asks once, after its last chunk, and the
    // GIN pending list its chunks left is merged then (see below)
    if (body?.count_only) {
      await this.entities.mergePendingIndexEntries();
      return { inserted: 0, updated: 0, total: await this.entities.count() };
    }
    if (body?.if_empty && (await this.entities.count()) > 0) return { inserted: 0, updated: 0, total: await this.entities.count(), skipped: true };
    const start = body?.start ?? 0;
    const count = body?.count;
    if (!Number.isInteger(start) || start < 0) throw DomainError.invalid('start', 'start must be a non-negative integer');
    if (!Number.isInteger(count) || count < 1 || count > MAX_SEED_PER_REQUEST) throw DomainError.invalid('count', `count must be 1..${MAX_SEED_PER_REQUEST}`);
    let inserted = 0;
    let updated = 0;
    for (let at = start; at < start + count; at += SEED_BATCH) {
      const batch: EntityInput[] = [];
      for (let n = at; n < Math.min(at + SEED_BATCH, start + count); n++) batch.push(seedEntity(n));
      const result = await this.entities.upsertMany(batch);
      inserted += result.inserted;
      updated += result.updated;
    }
    // a chunk of a large seed (`total: false`) leaves its index entries in the GIN pending list
    // (PostgreSQL merges it whenever it passes gin_pending_list_limit): merging after every chunk
    // of 2,000 rewrote the posting pages of every key a few entries at a time, about 15% of a 1M
    // seed's rate; the CLI's last request (`count_only`) merges what is left. Counting the index
    // reads the whole table, so such a chunk skips that too.
    if (body.total !== false) await this.entities.mergePendingIndexEntries();
    return { inserted, updated, total: body.total === false ? null : await this.entities.count() };
  }

  /** crm creating a company: what the matching organisation record says of it (none: []). */
  @MessagePattern(SUBJECTS.search.organizationsMatch)
  async organization(@Payload() message: RpcRequest<MatchOrganizationRequest>): Promise<CompanyFact[]> {
    const { body } = unpack(message);
    const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
    const record = await this.entities.findOrganization(text(body?.domain)?.toLowerCase() ?? null, text(body?.name));
    return record ? companyFactsOf(record) : [];
  }

  /** Operator: entities parsed by an ingestion connector, upserted by their source key. */
  @MessagePattern(SUBJECTS.search.ingest)
  async ingest(@Payload() message: RpcRequest<{ entities: EntityInput[] }>) {
    const { body } = unpack(message);
    if (!Array.isArray(body?.entities) || body.entities.length > SEED_BATCH) throw DomainError.invalid('entities', `entities must be an array of at most ${SEED_BATCH}`);
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
    await this.entities.mergePendingIndexEntries();
    return result;
  }
}
