import type { EntityInput } from '@app/contracts/resources/entity-input';

export { type EntityInput, facet } from '@app/contracts/resources/entity-input';

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
  // one string built as it goes (this runs for every row a seed or an ingest writes): the fields
  // that are set, then the details' strings (a detail that is an array: its strings), then search_text
  let text = '';
  const add = (v: unknown) => {
    if (v) text = text === '' ? `${v}` : `${text} ${v}`;
  };
  add(e.name);
  add(e.person_name);
  add(e.organization);
  add(e.title);
  add(e.domain);
  add(e.location);
  const details = e.details;
  if (details) {
    for (const key of TEXT_DETAILS) {
      const v = details[key];
      if (typeof v === 'string') add(v);
      else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') add(x);
    }
  }
  add(e.search_text);
  return text;
}
