import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { FindOptionsWhere, ILike, Repository } from 'typeorm';
import { CompanyFact, ID_PREFIX, ListCompaniesRequest, Source } from '@app/contracts';
import { containsPattern, keysetPage, newId, PG_POOL, Queryable } from '@app/platform';
import { CompanyFactValues, mergeCompanyFacts } from './company-facts';
import { CompanyEntity } from './company.entity';

export interface CompanyRef {
  id: string;
  name: string;
}

/**
 * Companies are read through TypeORM. What a lead's create or reveal does to its company
 * (exists, findOrCreate, applyFacts) stays hand-written on the lead's own transaction: it is
 * part of every lead insert, the write path `npm run bench -- leads` loads.
 */
@Injectable()
export class CompaniesRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @InjectRepository(CompanyEntity) private readonly companies: Repository<CompanyEntity>,
  ) {}

  async findById(workspaceId: string, id: string): Promise<CompanyEntity | undefined> {
    return (await this.companies.findOneBy({ workspace_id: workspaceId, id })) ?? undefined;
  }

  /** Newest first; `q` matches name or domain, `country` the ISO code. */
  async list(workspaceId: string, query: ListCompaniesRequest): Promise<CompanyEntity[]> {
    const where: FindOptionsWhere<CompanyEntity> = { workspace_id: workspaceId };
    if (query.country !== undefined && query.country !== null) where.country = query.country.toUpperCase();
    const matching = query.q ? [{ ...where, name: ILike(containsPattern(query.q)) }, { ...where, domain: ILike(containsPattern(query.q)) }] : where;
    return this.companies.find(keysetPage(matching, query.starting_after, query.limit));
  }

  /** Whether the company a lead would be linked to (findOrCreate's match) exists already. */
  async exists(workspaceId: string, name: string | null, domain: string | null): Promise<boolean> {
    const { rows } = domain
      ? await this.pool.query('SELECT 1 FROM companies WHERE workspace_id = $1 AND domain = $2', [workspaceId, domain])
      : await this.pool.query('SELECT 1 FROM companies WHERE workspace_id = $1 AND lower(name) = lower($2) LIMIT 1', [workspaceId, name]);
    return rows.length > 0;
  }

  /** Records facts about a company (mergeCompanyFacts) under its row lock. */
  async applyFacts(db: Queryable, workspaceId: string, id: string, facts: readonly CompanyFact[]): Promise<void> {
    if (facts.length === 0) return;
    const { rows } = await db.query<CompanyFactValues & { sources: Source[] }>(
      'SELECT industry, size, country, city, description, sources FROM companies WHERE workspace_id = $1 AND id = $2 FOR UPDATE', [workspaceId, id],
    );
    const merged = rows[0] && mergeCompanyFacts(rows[0], facts);
    if (!merged) return;
    await db.query(
      `UPDATE companies SET industry = $3, size = $4, country = $5, city = $6, description = $7, sources = $8, updated_at = date_trunc('milliseconds', now())
        WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, merged.industry, merged.size, merged.country, merged.city, merged.description, JSON.stringify(merged.sources)],
    );
  }

  /**
   * The company a lead belongs to: matched by normalised domain when one is known, else by
   * case-insensitive name; created when none matches.
   */
  async findOrCreate(db: Queryable, workspaceId: string, name: string | null, domain: string | null, sources: Source[]): Promise<CompanyRef> {
    if (domain) {
      const inserted = await db.query<CompanyRef>(
        `INSERT INTO companies (id, workspace_id, name, domain, sources) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (workspace_id, domain) WHERE domain IS NOT NULL DO NOTHING RETURNING id, name`,
        [newId(ID_PREFIX.company), workspaceId, name ?? domain, domain, JSON.stringify(sources)],
      );
      if (inserted.rows[0]) return inserted.rows[0];
      const { rows } = await db.query<CompanyRef>('SELECT id, name FROM companies WHERE workspace_id = $1 AND domain = $2', [
        workspaceId,
        domain,
      ]);
      return rows[0];
    }
    const existing = await db.query<CompanyRef>(
      'SELECT id, name FROM companies WHERE workspace_id = $1 AND lower(name) = lower($2) ORDER BY id LIMIT 1',
      [workspaceId, name],
    );
    if (existing.rows[0]) return existing.rows[0];
    const { rows } = await db.query<CompanyRef>(
      'INSERT INTO companies (id, workspace_id, name, sources) VALUES ($1, $2, $3, $4) RETURNING id, name',
      [newId(ID_PREFIX.company), workspaceId, name, JSON.stringify(sources)],
    );
    return rows[0];
  }
}
