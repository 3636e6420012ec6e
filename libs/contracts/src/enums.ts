export const LENSES = ['leads', 'investors', 'researchers', 'grants'] as const;
export type Lens = (typeof LENSES)[number];

export const PLANS = ['free', 'starter', 'growth', 'agency'] as const;
export type Plan = (typeof PLANS)[number];
/** The public API is sold on the agency plan only. */
export const API_PLANS: readonly Plan[] = ['agency'];

export const EMAIL_STATUSES = ['valid', 'invalid', 'catch_all', 'risky', 'unknown'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

export const LAWFUL_BASES = ['legitimate_interest', 'consent', 'contract'] as const;
export type LawfulBasis = (typeof LAWFUL_BASES)[number];

export const SOURCE_PROVIDERS = [
  'crawler', 'sec_edgar', 'openalex', 'orcid', 'crossref', 'nih_reporter', 'nsf_awards', 'grants_gov',
  'google_places', 'serpapi', 'opencorporates', 'import', 'api', 'manual',
] as const;
export type SourceProvider = (typeof SOURCE_PROVIDERS)[number];

export const COMPANY_SIZES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001+'] as const;

export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const CREDIT_POOLS = ['plan', 'pack'] as const;
export type CreditPool = (typeof CREDIT_POOLS)[number];

export const COUNTRY_RULES = ['allow', 'block', 'consent_required'] as const;
export type CountryRule = (typeof COUNTRY_RULES)[number];
