import { EntityInput } from '@app/contracts';

export { EntityInput, facet } from '@app/contracts';

/** A tsquery lexeme as text: quoted, with its quotes doubled and its backslashes escaped. */
const lexeme = (token: string): string => `'${token.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * A tsquery (as text) matching entities with any of these facets in `terms` (migration
 * 0004_entities_terms: every facet is there as 'F:' || facet).
 */
export const anyFacet = (facets: string[]): string => facets.map((f) => lexeme(`F:${f}`)).join(' | ');

/**
 * The facet tokens of `terms`: 'F:' || facet, each once. A facet of 2,000 bytes or more is left
 * out (a tsvector lexeme is at most 2,047 bytes; filter values are at most 100 characters, so no
 * filter could ask for one), as are nulls.
 */
export function facetTerms(facets: readonly unknown[] | undefined): string[] {
  const terms = new Set<string>();
  for (const f of facets ?? []) {
    if (f === null || f === undefined) continue;
    const value = String(f);
    if (value.length >= 600 && Buffer.byteLength(value) >= 2000) continue;
    terms.add(`F:${value}`);
  }
  return [...terms];
}

/**
 * The rank bands of every lens (migration 0009): band 0 is `rank_score >= RANK_BANDS[0]`, band i
 * is `RANK_BANDS[i] <= rank_score < RANK_BANDS[i - 1]`, the last `rank_score < RANK_BANDS[10]`.
 * On the 0..999,999 scale every connector and the seed use, band i (i < 11) holds 1/2^(12-i) of
 * it, the last band half: each band is as wide as every band above it together, so a read that
 * stops after the band where its page is filled reads at most about twice the matches it needs,
 * whatever the size of the index. Each band of each lens has a partial GIN index of `terms`
 * (`entities_terms_<lens>_b<i>`, whose predicates name these numbers: keep them equal; a different
 * number here makes the planner ignore those indexes, never changes a result).
 */
export const RANK_BANDS: readonly number[] = [999_511, 999_023, 998_046, 996_093, 992_187, 984_375, 968_750, 937_500, 875_000, 750_000, 500_000];

/** The rank condition of band `i` over `column` (constants, so the planner can prove a band index's predicate). */
export function rankBandSql(i: number, column: string): string {
  if (i === 0) return `${column} >= ${RANK_BANDS[0]}`;
  if (i === RANK_BANDS.length) return `${column} < ${RANK_BANDS[i - 1]}`;
  return `${column} >= ${RANK_BANDS[i]} AND ${column} < ${RANK_BANDS[i - 1]}`;
}

/** `jane@acme.com` -> `j***@acme.com` */
export function maskEmail(email: string | null): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/** `+14155550123` -> `+1415***0123` */
export function maskPhone(phone: string | null): string | null {
  if (!phone) return null;
  if (phone.length <= 6) return '***';
  return `${phone.slice(0, Math.min(5, phone.length - 4))}***${phone.slice(-4)}`;
}

/**
 * The details that say what an entity is about: its topics, sectors (industry for a company),
 * program, agency and mechanism. Free text (`q`) matches their words as it matches names (the
 * spec: "names, topics, domains, programs"), whichever connector wrote them.
 */
const TEXT_DETAILS = ['topics', 'sectors', 'industry', 'agency', 'program', 'mechanism'] as const;

/**
 * The words `q` matches: names, organization, title, domain, location, the details above, and
 * `search_text`, the words a connector adds from its source (keywords, category names, former
 * names...).
 */
export function searchTextOf(e: EntityInput): string {
  const about = TEXT_DETAILS.flatMap((key) => [e.details?.[key]].flat()).filter((v): v is string => typeof v === 'string');
  return [e.name, e.person_name, e.organization, e.title, e.domain, e.location, ...about, e.search_text].filter(Boolean).join(' ');
}
