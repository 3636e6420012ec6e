import { COMPANY_FACT_FIELDS, COMPANY_SIZES, CompanyFact, CompanyFactField, Source, SourceProvider } from '@app/contracts';

export type CompanyFactValues = Record<CompanyFactField, string | null>;

/** Organisation registries: what they say of a company outranks anything else. */
const REGISTRIES: readonly SourceProvider[] = ['opencorporates', 'sec_edgar'];
/** Records a caller typed in: below any record found by the service. */
const CALLER_ENTERED: readonly SourceProvider[] = ['api', 'import', 'manual'];

/** How much a value's provenance weighs: registry 3, another found record 2, a caller's 1, none 0. */
export function factRank(source: Source | null | undefined): number {
  if (!source) return 0;
  if (REGISTRIES.includes(source.provider)) return 3;
  if (CALLER_ENTERED.includes(source.provider)) return 1;
  return 2;
}

const MAX_LENGTH: Record<CompanyFactField, number> = { industry: 100, size: 20, country: 2, city: 200, description: 1000 };

/** A fact's value as the Company resource holds it, or null when it is not one (a size outside the enumeration, a country that is no ISO code). */
function cleanValue(fact: CompanyFact): string | null {
  if (!(COMPANY_FACT_FIELDS as readonly string[]).includes(fact?.field) || typeof fact.value !== 'string') return null;
  const value = fact.field === 'country' ? fact.value.trim().toUpperCase() : fact.value.trim();
  if (value === '' || value.length > MAX_LENGTH[fact.field]) return null;
  if (fact.field === 'country' && !/^[A-Z]{2}$/.test(value)) return null;
  if (fact.field === 'size' && !(COMPANY_SIZES as readonly string[]).includes(value)) return null;
  return value;
}

/**
 * A company's fields after new facts, in order: a fact fills a field that is null, and replaces a
 * held value only when its provenance outranks the held value's (factRank), its Source replacing
 * the old one. A null never replaces anything, and an equal rank keeps what came first, so values
 * do not flap between records that disagree. Null when nothing changes.
 */
export function mergeCompanyFacts(
  current: CompanyFactValues & { sources: Source[] },
  facts: readonly CompanyFact[],
): (CompanyFactValues & { sources: Source[] }) | null {
  const next = { ...current, sources: [...current.sources] };
  let changed = false;
  for (const fact of facts) {
    const value = cleanValue(fact);
    if (value === null) continue;
    const held = next.sources.find((s) => s.field === fact.field);
    if (next[fact.field] !== null && factRank(fact.source) <= factRank(held)) continue;
    next[fact.field] = value;
    next.sources = next.sources.filter((s) => s.field !== fact.field);
    if (fact.source) next.sources.push({ ...fact.source, field: fact.field });
    changed = true;
  }
  return changed ? next : null;
}
