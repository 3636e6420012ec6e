import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { EmailStatus, ID_PREFIX, Lens, SourceRecord } from '@app/contracts';
import { newId, PG_POOL, Queryable } from '@app/platform';
import { EntityInput, searchTextOf } from './entity';

export interface EntityRow {
  id: string;
  lens: Lens;
  name: string;
  person_name: string | null;
  first_name: string | null;
  last_name: string | null;
  title: string | null;
  organization: string | null;
  location: string | null;
  country: string | null;
  domain: string | null;
  email: string | null;
  phone: string | null;
  details: Record<string, unknown>;
  sources: SourceRecord[];
  revealed?: boolean;
  revealed_email_status?: EmailStatus | null;
}

/** A filter condition: SQL with `$n` placeholders numbered from 1 and its values. */
export interface Condition {
  sql: (next: () => string) => string;
}

const COLUMNS = 'id, lens, name, person_name, first_name, last_name, title, organization, location, country, domain, email, phone, details, sources';

@Injectable()
export class EntitiesRepository {
  constructor(@Inject(PG_POOL) readonly pool: Pool) {}

  /** Inserts or updates by ext_key (same source record -> same entity); one statement per batch. */
  async upsertMany(entities: EntityInput[], q: Queryable = this.pool): Promise<{ inserted: number; updated: number }> {
    if (entities.length === 0) return { inserted: 0, updated: 0 };
    const now = Date.now();
    const cols: unknown[][] = Array.from({ length: 21 }, () => []);
    for (const e of entities) {
      const values = [
        newId(ID_PREFIX.entity, now), e.ext_key, e.lens, e.name, e.person_name ?? null, e.first_name ?? null, e.last_name ?? null, e.title ?? null,
        e.organization ?? null, e.location ?? null, e.country ?? null, e.domain ?? null, e.email ?? null, e.phone ?? null,
        JSON.stringify(e.details), `{${e.facets.map((f) => `"${f.replace(/["\\]/g, '\\$&')}"`).join(',')}}`, e.num_min ?? null, e.num_max ?? null,
        e.rank_score ?? 0, JSON.stringify(e.sources), searchTextOf(e),
      ];
      values.forEach((v, i) => cols[i].push(v));
    }
    const { rows } = await q.query<{ inserted: boolean }>(
      `INSERT INTO entities (id, ext_key, lens, name, person_name, first_name, last_name, title, organization, location, country, domain,
                             email, phone, details, facets, num_min, num_max, rank_score, sources, search_text)
       SELECT id, ext_key, lens, name, person_name, first_name, last_name, title, organization, location, country, domain,
              email, phone, details::jsonb, facets::text[], num_min, num_max, rank_score, sources::jsonb, search_text
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                     $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::bigint[], $18::bigint[], $19::int[],
                     $20::text[], $21::text[])
           AS t(id, ext_key, lens, name, person_name, first_name, last_name, title, organization, location, country, domain,
                email, phone, details, facets, num_min, num_max, rank_score, sources, search_text)
       ON CONFLICT (ext_key) DO UPDATE SET
         lens = EXCLUDED.lens, name = EXCLUDED.name, person_name = EXCLUDED.person_name, first_name = EXCLUDED.first_name,
         last_name = EXCLUDED.last_name, title = EXCLUDED.title, organization = EXCLUDED.organization, location = EXCLUDED.location,
         country = EXCLUDED.country, domain = EXCLUDED.domain, email = coalesce(EXCLUDED.email, entities.email),
         phone = coalesce(EXCLUDED.phone, entities.phone), details = EXCLUDED.details, facets = EXCLUDED.facets,
         num_min = EXCLUDED.num_min, num_max = EXCLUDED.num_max, rank_score = EXCLUDED.rank_score, sources = EXCLUDED.sources,
         search_text = EXCLUDED.search_text, updated_at = now()
       RETURNING (xmax = 0) AS inserted`,
      cols,
    );
    const inserted = rows.filter((r) => r.inserted).length;
    return { inserted, updated: rows.length - inserted };
  }

  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM entities');
    return Number(rows[0].n);
  }

  /**
   * One page of a lens: the text query and the filters narrow the set through the GIN indexes;
   * hits come in a fixed order (static rank, then id), so PostgreSQL stops after
   * offset + limit rows (at most 40 pages * 25) and never ranks every match.
   */
  async search(workspaceId: string, lens: Lens, q: string, conditions: Condition[], params: unknown[], offset: number, limit: number): Promise<EntityRow[]> {
    let n = 2;
    const next = () => `$${++n}`;
    const condSql = conditions.map((c) => c.sql(next));
    // rebuild the parameter list in the order used: ws, lens, condition params, q
    const ordered: unknown[] = [workspaceId, lens, ...params];
    const text: string[] = ['e.lens = $2', ...condSql];
    if (q.trim() !== '') {
      ordered.push(q);
      text.push(`e.tsv @@ plainto_tsquery('simple', $${ordered.length})`);
    }
    ordered.push(limit, offset);
    const { rows } = await this.pool.query<EntityRow>(
      `SELECT e.*, (r.id IS NOT NULL) AS revealed, r.email_status AS revealed_email_status
         FROM (SELECT ${COLUMNS}, rank_score FROM entities e
                WHERE ${text.join(' AND ')}
                ORDER BY e.rank_score DESC, e.id
                LIMIT $${ordered.length - 1} OFFSET $${ordered.length}) e
         LEFT JOIN reveals r ON r.workspace_id = $1 AND r.entity_id = e.id
        ORDER BY e.rank_score DESC, e.id`,
      ordered,
    );
    return rows;
  }

  async get(id: string): Promise<EntityRow | undefined> {
    const { rows } = await this.pool.query<EntityRow>(`SELECT ${COLUMNS} FROM entities WHERE id = $1`, [id]);
    return rows[0];
  }
}
