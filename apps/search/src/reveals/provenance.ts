import { COMPANY_SIZES, CompanyFact, CompanyFactField, EmailStatus, SOURCE_PROVIDERS, SourceRecord } from '@app/contracts';
import { EntityRow } from '../entities/entities.repository';

/** Check outcomes that make an address a contact worth a credit; `unknown` (no answer) and `invalid` are not. */
export const DELIVERABLE: readonly EmailStatus[] = ['valid', 'catch_all', 'risky'];

const E164 = /^\+[1-9]\d{6,14}$/;
export const isE164 = (phone: string | null | undefined): phone is string => typeof phone === 'string' && E164.test(phone);

/** A Source names a provider of the spec's enumeration and an absolute http(s) URL. */
export function sourceProblem(source: unknown): string | null {
  const s = source as Partial<SourceRecord> | null;
  if (!s || typeof s !== 'object') return 'must be an object';
  for (const key of ['field', 'value', 'fetched_at'] as const) if (typeof s[key] !== 'string' || s[key] === '') return `${key} must be a non-empty string`;
  if (!(SOURCE_PROVIDERS as readonly string[]).includes(s.provider as string)) return `provider must be one of ${SOURCE_PROVIDERS.join(', ')}`;
  let url: URL;
  try {
    url = new URL(String(s.source_url));
  } catch {
    return 'source_url must be an absolute URL';
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') return 'source_url must be an http(s) URL';
  return null;
}

/**
 * The record a value of the entity came from: its Source for one of `fields` (the first found, in
 * that order), else the entity's own record (the Source of its name, else its first). Undefined
 * when the entity carries no Source at all: then no provenance can be given, and none is made up.
 */
function recordOf(entity: EntityRow, fields: readonly string[]): SourceRecord | undefined {
  for (const field of fields) {
    const found = entity.sources.find((s) => s.field === field);
    if (found) return found;
  }
  return entity.sources.find((s) => s.field === 'name') ?? entity.sources[0];
}

const backs = (sources: readonly SourceRecord[], field: string, value: string) =>
  sources.some((s) => s.field === field && s.value.toLowerCase() === value.toLowerCase());

/**
 * The Sources of a reveal: the entity's, plus one for the email and one for the phone returned
 * when the entity's Sources do not already back them. An address the entity carried cites the
 * record that carried it; an address made from a name pattern and confirmed by the mail server
 * cites the record the domain came from, with the address as its value and the time of the check.
 */
export function revealSources(entity: EntityRow, email: string | null, phone: string | null, checkedAt: string): SourceRecord[] {
  const sources = [...entity.sources];
  if (email && !backs(sources, 'email', email)) {
    const carried = entity.email !== null && entity.email.toLowerCase() === email.toLowerCase();
    const record = carried ? recordOf(entity, ['email']) : recordOf(entity, ['domain', 'website', 'email']);
    if (record) sources.push({ field: 'email', value: email, source_url: record.source_url, provider: record.provider, fetched_at: carried ? record.fetched_at : checkedAt });
  }
  if (phone && !backs(sources, 'phone', phone)) {
    const record = recordOf(entity, ['phone']);
    if (record) sources.push({ field: 'phone', value: phone, source_url: record.source_url, provider: record.provider, fetched_at: record.fetched_at });
  }
  return sources;
}

const COUNTRY = /^[A-Z]{2}$/;

/**
 * What an entity says of its organisation: industry, size, city and description from its details,
 * country from its column, each with the Source of the record that carried it. A value without
 * any Source to cite is left out.
 */
export function companyFactsOf(entity: EntityRow): CompanyFact[] {
  const details = entity.details ?? {};
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  const values: Record<CompanyFactField, string | null> = {
    industry: text(details.industry),
    size: (COMPANY_SIZES as readonly unknown[]).includes(details.size) ? (details.size as string) : null,
    country: entity.country && COUNTRY.test(entity.country) ? entity.country : null,
    city: text(details.city),
    description: text(details.description),
  };
  const facts: CompanyFact[] = [];
  for (const [field, value] of Object.entries(values) as [CompanyFactField, string | null][]) {
    if (value === null) continue;
    const record = recordOf(entity, [field]);
    if (!record) continue;
    const source = record.field === field ? record : { ...record, field, value };
    facts.push({ field, value, source });
  }
  return facts;
}
