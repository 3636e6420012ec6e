import { CountryRule, LeadContact } from '@app/contracts';

/**
 * Shipped defaults: countries whose law requires prior opt-in consent for unsolicited
 * commercial email to business addresses as well as private ones. A workspace overrides any
 * entry with `countries:set`; a country not listed is `allow`. Sources are in docs/decisions.md.
 */
export const DEFAULT_COUNTRY_RULES: Readonly<Record<string, CountryRule>> = {
  DE: 'consent_required', // UWG §7(2) Nr. 3 (BGH case law: applies to B2B)
  AT: 'consent_required', // TKG 2021 §174 (consent for any recipient)
  DK: 'consent_required', // Markedsføringsloven §10
  IT: 'consent_required', // Codice privacy art. 130 (Garante: B2B included)
  NL: 'consent_required', // Telecommunicatiewet art. 11.7 (legal persons: opt-out only for existing contacts)
  PL: 'consent_required', // Prawo telekomunikacyjne art. 172 / UŚUDE art. 10
  HU: 'consent_required', // Act XLVIII of 2008 §6
  SI: 'consent_required', // ZEKom-2 art. 226
  GR: 'consent_required', // Law 3471/2006 art. 11
};

export function effectiveRule(country: string | null, overrides: ReadonlyMap<string, CountryRule>): CountryRule {
  if (!country) return 'allow';
  const cc = country.toUpperCase();
  return overrides.get(cc) ?? DEFAULT_COUNTRY_RULES[cc] ?? 'allow';
}

/** Whether the country rule lets the lead be contacted: block never, consent_required only with consent. */
export function countryAllows(lead: Pick<LeadContact, 'country' | 'lawful_basis'>, overrides: ReadonlyMap<string, CountryRule>): boolean {
  const rule = effectiveRule(lead.country, overrides);
  if (rule === 'block') return false;
  if (rule === 'consent_required') return lead.lawful_basis === 'consent';
  return true;
}
