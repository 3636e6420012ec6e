import { Injectable } from '@nestjs/common';
import { OpportunityProfile, RequestContext, SEARCH_PER_PAGE, SearchHit, SearchRequest, SearchResults } from '@app/contracts';
import { DomainError, JsonText } from '@app/platform';
import { LeasesService } from '../credits/leases.service';
import { Condition, EntitiesRepository, PageEntity } from '../entities/entities.repository';
import { facet, maskEmail, maskPhone } from '../entities/entity';
import { ProfilesRepository } from './profiles.repository';

const FACET_KEYS = new Set(['industry', 'country', 'size', 'stage', 'sector', 'type', 'state', 'region', 'institution', 'agency', 'program', 'mechanism']);

/** Filters of the spec as conditions of the in-memory index (values were validated by the gateway); values of one facet key are OR. */
export function conditionsFor(filters: Record<string, string[]>): Condition[] {
  const conditions: Condition[] = [];
  const numeric = (value: number, column: 'num_min' | 'num_max', op: '>=' | '<=' | '<') => conditions.push({ column, op, value });
  for (const [key, values] of Object.entries(filters ?? {})) {
    if (!Array.isArray(values) || values.length === 0) continue;
    if (FACET_KEYS.has(key)) conditions.push({ facets: values.map((v) => facet(key, v)) });
    else if (key === 'title') conditions.push({ words: values.join(' ') });
    else if (key === 'check_min') numeric(Math.max(...values.map(Number)), 'num_max', '>=');
    else if (key === 'check_max') numeric(Math.min(...values.map(Number)), 'num_min', '<=');
    else if (key === 'min_works') numeric(Math.max(...values.map(Number)), 'num_min', '>=');
    else if (key === 'recency') numeric(new Date().getUTCFullYear() - Math.min(...values.map(Number)), 'num_max', '>=');
    else if (key === 'deadline_before') numeric(Math.min(...values.map((v) => Math.floor(Date.parse(`${v}T00:00:00Z`) / 86_400_000))), 'num_max', '<');
  }
  return conditions;
}

/** 0..100: sector overlap 40, stage 25, amount within the check size 25, location 10. */
export function matchScore(details: Record<string, unknown>, location: string | null, profile: OpportunityProfile | undefined): number | null {
  if (!profile) return null;
  let score = 0;
  const sectors = (details.sectors as string[] | undefined) ?? [];
  const wanted = (profile.sectors ?? []).map((s) => s.toLowerCase());
  if (wanted.length > 0 && sectors.some((s) => wanted.includes(s.toLowerCase()))) score += 40;
  const stages = (details.stages as string[] | undefined) ?? [];
  if (profile.stage && stages.includes(profile.stage)) score += 25;
  const check = details.check_size_usd as { min?: number; max?: number } | undefined;
  if (profile.amount_usd !== undefined && check && profile.amount_usd >= (check.min ?? 0) && profile.amount_usd <= (check.max ?? Infinity)) score += 25;
  if (profile.location && location && location.toLowerCase().includes(profile.location.toLowerCase())) score += 10;
  return score;
}

/**
 * A details text that may name `email` or `phone` at its top level: the key in quotes, then its
 * colon after any whitespace. The column is json (migration 0024): a row written since holds
 * JSON.stringify's `"key":`, one written before it jsonb's `"key": `, and PostgreSQL's json input
 * keeps whatever spacing it was given. A match inside a string only costs a parse.
 */
const CONTACT_KEY = /"(?:email|phone)"\s*:/;

/**
 * The entity's details as the hit shows them: its json text as it is, or, when it may carry an
 * email or phone key (the contact is the reveal's: never shown in a hit), parsed without them.
 */
function detailsJson(text: string): string {
  if (!CONTACT_KEY.test(text)) return text;
  const { email: _email, phone: _phone, ...details } = JSON.parse(text) as Record<string, unknown>;
  void _email;
  void _phone;
  return JSON.stringify(details);
}

/**
 * `head` as JSON with `tail` (`"key":value` pairs already written as JSON) after its last key:
 * `head` has at least one key, so its JSON ends with `}` after a value.
 */
function withKeys(head: object, tail: string): string {
  return `${JSON.stringify(head).slice(0, -1)},${tail}}`;
}

/**
 * A hit (SearchHit) as JSON text: every field but `details` and `sources` serialised here, those
 * two (the last keys of a hit, in this order) spliced in as PostgreSQL stored the json: parsing
 * and serialising them again cost about a fifth of search's CPU a page (docs/benchmarks.md).
 */
export function hitJson(row: PageEntity, profile: OpportunityProfile | undefined): string {
  const head: Omit<SearchHit, 'details' | 'sources'> = {
    entity_id: row.id,
    lens: row.lens,
    name: row.name,
    person_name: row.person_name,
    title: row.title,
    organization: row.organization,
    location: row.location,
    email_masked: maskEmail(row.email),
    email_status: row.revealed ? (row.revealed_email_status ?? null) : null,
    phone_masked: maskPhone(row.phone),
    revealed: row.revealed === true,
    match_score: row.lens === 'investors' && profile ? matchScore(JSON.parse(row.details_json) as Record<string, unknown>, row.location, profile) : null,
  };
  return withKeys(head, `"details":${detailsJson(row.details_json)},"sources":${row.sources_json}`);
}

/** A page (SearchResults) as JSON text: its fields, then `data` (the last key), the hits' texts. */
export function pageJson(results: Omit<SearchResults, 'data'>, hits: string[]): JsonText<SearchResults> {
  return new JsonText(withKeys(results, `"data":[${hits.join(',')}]`));
}

/**
 * The search-page saga: a live page is paid (1 credit charged against the workspace's credit
 * lease in search's own database, ref = request id) before the hits are returned; a page that
 * cannot be produced after the charge is refunded. Billing is asked only for a new lease.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly entities: EntitiesRepository,
    private readonly profiles: ProfilesRepository,
    private readonly leases: LeasesService,
  ) {}

  async setProfile(ctx: RequestContext, profile: OpportunityProfile): Promise<OpportunityProfile> {
    if (!profile || typeof profile !== 'object' || Array.isArray(profile)) throw DomainError.invalid('profile', 'profile must be an object');
    const clean: OpportunityProfile = {};
    if (profile.sectors !== undefined) {
      if (!Array.isArray(profile.sectors) || profile.sectors.some((s) => typeof s !== 'string')) throw DomainError.invalid('sectors', 'sectors must be strings');
      clean.sectors = profile.sectors;
    }
    if (profile.stage !== undefined) {
      if (typeof profile.stage !== 'string') throw DomainError.invalid('stage', 'stage must be a string');
      clean.stage = profile.stage;
    }
    if (profile.amount_usd !== undefined) {
      if (typeof profile.amount_usd !== 'number' || profile.amount_usd < 0) throw DomainError.invalid('amount_usd', 'amount_usd must be a non-negative number');
      clean.amount_usd = profile.amount_usd;
    }
    if (profile.location !== undefined) {
      if (typeof profile.location !== 'string') throw DomainError.invalid('location', 'location must be a string');
      clean.location = profile.location;
    }
    await this.profiles.save(ctx.workspace_id, clean);
    return clean;
  }

  async search(ctx: RequestContext, request: SearchRequest): Promise<JsonText<SearchResults>> {
    const page = request.page ?? 1;
    const charge = ctx.livemode !== false && ctx.mode !== 'test';
    if (!charge && page !== 1) throw DomainError.invalid('page', 'Test keys can read page 1 only');
    const ref = `search:${ctx.request_id}`;
    const conditions = conditionsFor(request.filters);
    // the page is read while its credit is charged (a read changes nothing); it is returned only
    // once the charge is committed, and refunded when the read failed
    const read = this.entities.search(ctx.workspace_id, request.lens, request.q ?? '', conditions, (page - 1) * SEARCH_PER_PAGE, SEARCH_PER_PAGE);
    read.catch(() => undefined); // awaited below; not an unhandled rejection while the charge runs
    if (charge) await this.leases.charge(ctx, ref);
    try {
      const { rows, profile, more } = await read;
      return pageJson({
        object: 'search_results',
        lens: request.lens,
        query: request.q ?? '',
        page,
        per_page: SEARCH_PER_PAGE,
        has_more: more,
        credits_charged: charge ? 1 : 0,
        livemode: ctx.livemode,
      }, rows.map((row) => hitJson(row, profile)));
    } catch (err) {
      if (charge) await this.leases.refund(ctx, ref, 'search_failed');
      throw err;
    }
  }
}
