import type { SourceProvider } from '@app/contracts/enums';
import { type EntityInput, facet } from '@app/contracts/resources/entity-input';
import type { SourceRecord } from '@app/contracts/resources/search';

/** The providers `ingest --provider` reads, each from files in the provider's own format. */
export const INGEST_PROVIDERS = ['openalex', 'orcid', 'sec_edgar', 'nih_reporter', 'nsf_awards', 'grants_gov', 'opencorporates'] as const;
export type IngestProvider = (typeof INGEST_PROVIDERS)[number];

const REGION_OF: Record<string, string> = {
  US: 'north_america', CA: 'north_america', MX: 'north_america', BR: 'south_america', AR: 'south_america', CL: 'south_america',
  GB: 'europe', DE: 'europe', FR: 'europe', NL: 'europe', CH: 'europe', ES: 'europe', IT: 'europe', SE: 'europe', IE: 'europe',
  CN: 'asia', JP: 'asia', IN: 'asia', KR: 'asia', SG: 'asia', AU: 'oceania', NZ: 'oceania', IL: 'middle_east', AE: 'middle_east',
  ZA: 'africa', NG: 'africa', KE: 'africa', EG: 'africa',
};

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null);
const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.replace(/[$,]/g, '')) : NaN;
  return Number.isFinite(n) ? n : null;
};
const dayOf = (iso: string | null): number | null => (iso && !Number.isNaN(Date.parse(`${iso}T00:00:00Z`)) ? Math.floor(Date.parse(`${iso}T00:00:00Z`) / 86_400_000) : null);
const domainOf = (url: string | null): string | null => {
  if (!url) return null;
  try {
    return new URL(url.includes('://') ? url : `https://${url}`).hostname.replace(/^www\./, '');
  } catch {
    return null;
  }
};
const rank = (key: string): number => {
  let h = 0;
  for (const c of key) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return Math.abs(h) % 1_000_000;
};

/**
 * `search_text`: the words of a record free text should match beyond the fields and details
 * searchTextOf reads (keywords, category and division names, former names...); strings and
 * arrays of strings, anything else left out.
 */
function words(...values: unknown[]): string {
  return values.flat(2).filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim()).join(' ');
}

function sources(provider: SourceProvider, url: string, fetchedAt: string, fields: Record<string, string | null | undefined>): SourceRecord[] {
  return Object.entries(fields)
    .filter(([, v]) => v)
    .map(([field, value]) => ({ field, value: value as string, provider, source_url: url, fetched_at: fetchedAt }));
}

/** The text of the first `<name>` element inside `xml` (namespace prefixes ignored). */
function tag(xml: string, name: string): string | null {
  const m = new RegExp(`<(?:\\w+:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:\\w+:)?${name}>`).exec(xml);
  return m ? decodeXml(m[1].trim()) : null;
}
function tags(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<(?:\\w+:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:\\w+:)?${name}>`, 'g'))].map((m) => m[1]);
}
function decodeXml(s: string): string {
  return s.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

// ---- OpenAlex authors and institutions (API JSON: a single object or {results: [...]}) ----
/** The subfield, field and domain a topic sits in (e.g. Molecular Biology, Life Sciences): broader words for the same topics. */
const topicFields = (x: any): string[] =>
  (x.topics ?? []).slice(0, 5).flatMap((t: any) => [t?.subfield?.display_name, t?.field?.display_name, t?.domain?.display_name]);

function openalex(doc: any, fetchedAt: string): EntityInput[] {
  const items: any[] = Array.isArray(doc?.results) ? doc.results : [doc];
  return items.filter((x) => x && typeof x.id === 'string').map((x) => {
    const url = x.id as string;
    const isInstitution = /openalex\.org\/I/.test(url) || x.type === 'education' || 'homepage_url' in x;
    if (isInstitution) {
      const country = str(x.country_code);
      const name = str(x.display_name) ?? url;
      return {
        ext_key: `openalex:${url.split('/').pop()}`, lens: 'researchers', name, organization: name, country,
        location: [x.geo?.city, x.geo?.region, country].filter(Boolean).join(', ') || null, domain: domainOf(str(x.homepage_url)),
        details: { topics: (x.topics ?? x.x_concepts ?? []).slice(0, 5).map((t: any) => t.display_name), works_count: num(x.works_count) ?? 0, orcid: null, ror: str(x.ror), institution: name },
        facets: [country && facet('country', country), country && REGION_OF[country] && facet('region', REGION_OF[country]), facet('institution', name)].filter(Boolean) as string[],
        num_min: num(x.works_count) ?? 0, num_max: new Date().getUTCFullYear(), rank_score: rank(url),
        search_text: words(x.display_name_acronyms, x.display_name_alternatives, topicFields(x)),
        sources: sources('openalex', url, fetchedAt, { name, organization: name }),
      } satisfies EntityInput;
    }
    const inst = (x.last_known_institutions ?? (x.last_known_institution ? [x.last_known_institution] : []))[0] ?? {};
    const name = str(x.display_name) ?? url;
    const [first, ...rest] = name.split(' ');
    const country = str(inst.country_code);
    const orcid = str(x.orcid)?.replace('https://orcid.org/', '') ?? null;
    const years = (x.counts_by_year ?? []).filter((c: any) => c.works_count > 0).map((c: any) => c.year);
    return {
      ext_key: `openalex:${url.split('/').pop()}`, lens: 'researchers', name, person_name: name, first_name: first, last_name: rest.join(' ') || null,
      title: 'Researcher', organization: str(inst.display_name), country, location: country,
      details: { topics: (x.topics ?? x.x_concepts ?? []).slice(0, 5).map((t: any) => t.display_name), works_count: num(x.works_count) ?? 0, orcid, institution: str(inst.display_name) },
      facets: [country && facet('country', country), country && REGION_OF[country] && facet('region', REGION_OF[country]), inst.display_name && facet('institution', inst.display_name)].filter(Boolean) as string[],
      num_min: num(x.works_count) ?? 0, num_max: years.length ? Math.max(...years) : null, rank_score: rank(url),
      search_text: words(x.display_name_alternatives, topicFields(x)),
      sources: sources('openalex', url, fetchedAt, { name, organization: str(inst.display_name) }),
    } satisfies EntityInput;
  });
}

// ---- ORCID v3.0 record JSON ----
function orcid(doc: any, fetchedAt: string): EntityInput[] {
  const records: any[] = Array.isArray(doc?.result) ? doc.result : Array.isArray(doc) ? doc : [doc];
  return records.filter((r) => r?.['orcid-identifier']?.path).map((r) => {
    const id = r['orcid-identifier'].path as string;
    const url = `https://orcid.org/${id}`;
    const person = r.person ?? {};
    const first = str(person.name?.['given-names']?.value);
    const last = str(person.name?.['family-name']?.value);
    const name = [first, last].filter(Boolean).join(' ') || id;
    const email = str(person.emails?.email?.[0]?.email);
    const country = str(person.addresses?.address?.[0]?.country?.value);
    const employment = r['activities-summary']?.employments?.['affiliation-group']?.[0]?.summaries?.[0]?.['employment-summary'] ?? {};
    const org = str(employment.organization?.name);
    const works = r['activities-summary']?.works?.group?.length ?? 0;
    const keywords = (person.keywords?.keyword ?? []).map((k: any) => k.content).filter(Boolean);
    return {
      ext_key: `orcid:${id}`, lens: 'researchers', name, person_name: name, first_name: first, last_name: last, title: str(employment['role-title']) ?? 'Researcher',
      organization: org, country, location: [employment.organization?.address?.city, country].filter(Boolean).join(', ') || null, email,
      domain: email ? email.split('@')[1] : null,
      details: { topics: keywords, works_count: works, orcid: id, institution: org },
      facets: [country && facet('country', country), country && REGION_OF[country] && facet('region', REGION_OF[country]), org && facet('institution', org)].filter(Boolean) as string[],
      num_min: works, num_max: null, rank_score: rank(id),
      search_text: words(employment['department-name'], (person['other-names']?.['other-name'] ?? []).map((n: any) => n?.content)),
      sources: sources('orcid', url, fetchedAt, { name, organization: org, email }),
    } satisfies EntityInput;
  });
}

// ---- SEC EDGAR Form D primary_doc.xml: the issuer (fund) and its related persons ----
function secEdgar(xml: string, fetchedAt: string): EntityInput[] {
  const issuer = tag(xml, 'primaryIssuer') ?? '';
  const cik = tag(issuer, 'cik') ?? 'unknown';
  const fund = tag(issuer, 'entityName') ?? `CIK ${cik}`;
  const state = tag(tag(issuer, 'issuerAddress') ?? '', 'stateOrCountry');
  const city = tag(tag(issuer, 'issuerAddress') ?? '', 'city');
  const phone = tag(issuer, 'issuerPhoneNumber');
  const fundType = tag(xml, 'investmentFundType') ?? tag(xml, 'industryGroupType');
  const type = /venture/i.test(fundType ?? '') ? 'vc' : /private equity/i.test(fundType ?? '') ? 'private_equity' : /hedge/i.test(fundType ?? '') ? 'private_equity' : 'vc';
  const minimum = num(tag(xml, 'minimumInvestmentAccepted')) ?? 0;
  const total = num(tag(xml, 'totalOfferingAmount'));
  const filed = tag(xml, 'signatureDate') ?? tag(xml, 'dateOfFirstSale') ?? null;
  const url = `https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=${cik}&type=D`;
  const persons = tags(xml, 'relatedPersonInfo').map((p) => ({
    first: tag(p, 'firstName'), last: tag(p, 'lastName'),
    role: tags(p, 'relationship').map(decodeXml).join(', ') || null,
  }));
  const lead = persons[0];
  const details = { stages: [] as string[], sectors: [] as string[], check_size_usd: { min: minimum, max: total ?? minimum }, last_filing_at: filed, type, state, city, cik };
  const base = {
    lens: 'investors' as const, organization: fund, location: [city, state].filter(Boolean).join(', ') || null, country: state && state.length === 2 ? 'US' : null,
    phone: phone ? `+1${phone.replace(/\D/g, '').slice(-10)}` : null, num_min: minimum, num_max: total ?? minimum,
    facets: [facet('type', type), state && facet('state', state)].filter(Boolean) as string[],
    // the offering's industry group and fund type are what Form D says the issuer invests in and is
    search_text: words(tag(xml, 'industryGroupType'), tag(xml, 'investmentFundType'), type),
  };
  const entities: EntityInput[] = [{
    ...base, ext_key: `sec_edgar:${cik}`, name: fund, person_name: lead ? [lead.first, lead.last].filter(Boolean).join(' ') : null,
    first_name: lead?.first ?? null, last_name: lead?.last ?? null, title: lead?.role ?? null, details, rank_score: rank(cik),
    sources: sources('sec_edgar', url, fetchedAt, { name: fund, person_name: lead ? `${lead.first} ${lead.last}` : null, check_size_usd: `${minimum}-${total ?? minimum}`, phone, city }),
  }];
  for (const p of persons) {
    const name = [p.first, p.last].filter(Boolean).join(' ');
    if (!name) continue;
    entities.push({
      ...base, ext_key: `sec_edgar:${cik}:${name.toLowerCase()}`, name: `${name} (${fund})`, person_name: name, first_name: p.first, last_name: p.last,
      title: p.role, details, rank_score: rank(`${cik}${name}`), phone: null,
      sources: sources('sec_edgar', url, fetchedAt, { person_name: name, organization: fund, title: p.role }),
    });
  }
  return entities;
}

function usDate(s: string | null): string | null {
  if (!s) return null;
  let m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(s);
  if (m) return `${m[3]}-${m[1]}-${m[2]}`;
  m = /^(\d{2})(\d{2})(\d{4})$/.exec(s);
  if (m) return `${m[3]}-${m[1]}-${m[2]}`;
  return /^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : null;
}

function grant(provider: SourceProvider, key: string, url: string, fetchedAt: string, g: {
  title: string; agency: string; program: string | null; mechanism: string | null; amount: number | null; deadline: string | null;
  first?: string | null; last?: string | null; email?: string | null; org?: string | null; location?: string | null; number?: string | null;
  /** Topic and program words of the source beyond agency, program and mechanism. */
  words?: string;
}): EntityInput {
  const person = [g.first, g.last].filter(Boolean).join(' ') || null;
  return {
    ext_key: `${provider}:${key}`, lens: 'grants', name: g.title, person_name: person, first_name: g.first ?? null, last_name: g.last ?? null,
    title: person ? 'Principal Investigator' : null, organization: g.org ?? g.agency, location: g.location ?? null, country: 'US', email: g.email ?? null,
    domain: g.email ? g.email.split('@')[1] : null,
    details: { agency: g.agency, program: g.program, mechanism: g.mechanism, amount: g.amount, deadline: g.deadline, opportunity_number: g.number ?? null },
    facets: [facet('agency', g.agency), g.program && facet('program', g.program), g.mechanism && facet('mechanism', g.mechanism)].filter(Boolean) as string[],
    num_min: g.amount, num_max: dayOf(g.deadline), rank_score: rank(key), search_text: g.words ?? '',
    sources: sources(provider, url, fetchedAt, { name: g.title, agency: g.agency, amount: g.amount === null ? null : String(g.amount), person_name: person, email: g.email }),
  };
}

// ---- NIH RePORTER v2 projects/search results ----
const termList = (v: unknown): string[] => (typeof v === 'string' ? v.split(/[;<>]/) : []);

function nihReporter(doc: any, fetchedAt: string): EntityInput[] {
  return (doc?.results ?? []).map((p: any) => {
    const pi = (p.principal_investigators ?? []).find((x: any) => x.is_contact_pi) ?? p.principal_investigators?.[0] ?? {};
    const key = String(p.appl_id ?? p.project_num);
    return grant('nih_reporter', key, str(p.project_detail_url) ?? `https://reporter.nih.gov/project-details/${key}`, fetchedAt, {
      title: str(p.project_title) ?? key, agency: 'NIH', program: str(p.agency_ic_admin?.abbreviation), mechanism: str(p.activity_code),
      amount: num(p.award_amount), deadline: usDate(str(p.project_end_date)), first: str(pi.first_name), last: str(pi.last_name),
      org: str(p.organization?.org_name), location: [p.organization?.org_city, p.organization?.org_state].filter(Boolean).join(', ') || null, number: str(p.project_num),
      // the institute's name, the project's thesaurus terms (`pref_terms` "a;b", `terms` "<a><b>") and spending categories
      words: words(p.agency_ic_admin?.name, p.agency_ic_fundings?.map((f: any) => f?.name), termList(p.pref_terms), termList(p.terms), termList(p.spending_categories_desc)),
    });
  });
}

// ---- NSF Award Search API results ----
function nsfAwards(doc: any, fetchedAt: string): EntityInput[] {
  return (doc?.response?.award ?? []).map((a: any) => grant('nsf_awards', String(a.id), `https://www.nsf.gov/awardsearch/showAward?AWD_ID=${a.id}`, fetchedAt, {
    title: str(a.title) ?? String(a.id), agency: 'NSF', program: str(a.fundProgramName), mechanism: str(a.transType) ?? 'standard',
    amount: num(a.estimatedTotalAmt ?? a.fundsObligatedAmt), deadline: usDate(str(a.expDate)), first: str(a.piFirstName), last: str(a.piLastName),
    email: str(a.piEmail), org: str(a.awardeeName), location: [a.awardeeCity, a.awardeeStateCode].filter(Boolean).join(', ') || null, number: String(a.id),
    // the directorate and division that run the program, when the request asked for them (printFields)
    words: words(a.primaryProgram, a.dirAbbr, a.divAbbr, a.orgLongName, a.orgLongName2, a.cfdaNumber),
  }));
}

// ---- Grants.gov XML extract (OpportunitySynopsisDetail_1_0) ----
const INSTRUMENTS: Record<string, string> = { G: 'grant', CA: 'cooperative_agreement', PC: 'procurement_contract', O: 'other' };
/** Grants.gov's categories of funding activity, by the code the extract carries. */
const CATEGORIES: Record<string, string> = {
  ACA: 'Affordable Care Act', AG: 'Agriculture', AR: 'Arts', BC: 'Business and Commerce', CD: 'Community Development',
  CP: 'Consumer Protection', DPR: 'Disaster Prevention and Relief', ED: 'Education', ELT: 'Employment, Labor and Training',
  EN: 'Energy', ENV: 'Environment', FN: 'Food and Nutrition', HL: 'Health', HO: 'Housing', HU: 'Humanities',
  IIJ: 'Infrastructure Investment and Jobs Act', IS: 'Information and Statistics', ISS: 'Income Security and Social Services',
  LJL: 'Law, Justice and Legal Services', NR: 'Natural Resources', OZ: 'Opportunity Zone Benefits', RA: 'Recovery Act',
  RD: 'Regional Development', ST: 'Science and Technology and other Research and Development', T: 'Transportation', O: 'Other',
};
function grantsGov(xml: string, fetchedAt: string): EntityInput[] {
  return tags(xml, 'OpportunitySynopsisDetail_1_0').map((o) => {
    const id = tag(o, 'OpportunityID') ?? tag(o, 'OpportunityNumber') ?? 'unknown';
    const contact = tag(o, 'GrantorContactName');
    const [first, ...rest] = (contact ?? '').split(' ');
    return grant('grants_gov', id, `https://www.grants.gov/search-results-detail/${id}`, fetchedAt, {
      title: tag(o, 'OpportunityTitle') ?? id, agency: tag(o, 'AgencyCode')?.split('-')[0] ?? tag(o, 'AgencyName') ?? 'unknown',
      program: tag(o, 'CFDANumbers'), mechanism: INSTRUMENTS[tag(o, 'FundingInstrumentType') ?? ''] ?? tag(o, 'FundingInstrumentType'),
      amount: num(tag(o, 'AwardCeiling')), deadline: usDate(tag(o, 'CloseDate')), first: contact ? first : null, last: contact ? rest.join(' ') || null : null,
      email: tag(o, 'GrantorContactEmail'), org: tag(o, 'AgencyName'), number: tag(o, 'OpportunityNumber'),
      words: words(
        tag(o, 'AgencyCode'), tags(o, 'CFDANumbers').map(decodeXml), tag(o, 'CategoryExplanation'),
        tags(o, 'CategoryOfFundingActivity').map((c) => CATEGORIES[decodeXml(c).trim()] ?? decodeXml(c)),
        tags(o, 'FundingInstrumentType').map((i) => INSTRUMENTS[decodeXml(i).trim()]),
      ),
    });
  });
}

// ---- OpenCorporates company records (API JSON) ----
function openCorporates(doc: any, fetchedAt: string): EntityInput[] {
  const companies: any[] = doc?.results?.companies ? doc.results.companies.map((c: any) => c.company) : doc?.results?.company ? [doc.results.company] : [];
  return companies.filter(Boolean).map((c) => {
    const key = `${c.jurisdiction_code}/${c.company_number}`;
    const url = str(c.opencorporates_url) ?? `https://opencorporates.com/companies/${key}`;
    const country = (str(c.registered_address?.country_code) ?? str(c.jurisdiction_code)?.slice(0, 2) ?? '').toUpperCase() || null;
    const officer = (c.officers ?? []).map((o: any) => o.officer).find((o: any) => o && !o.end_date) ?? null;
    const industry = str(c.industry_codes?.[0]?.industry_code?.description);
    const officerName = str(officer?.name);
    const city = str(c.registered_address?.locality);
    const domain = domainOf(str(c.home_company?.website) ?? str(c.website));
    const [first, ...rest] = (officerName ?? '').toLowerCase().split(/\s+/).map((w: string) => w.charAt(0).toUpperCase() + w.slice(1));
    return {
      ext_key: `opencorporates:${key}`, lens: 'leads', name: str(c.name) ?? key, person_name: officerName ? [first, ...rest].join(' ') : null,
      first_name: officerName ? first : null, last_name: officerName ? rest.join(' ') || null : null, title: str(officer?.position),
      organization: str(c.name), location: str(c.registered_address_in_full), country, domain,
      details: { industry, city, company_number: str(c.company_number), jurisdiction: str(c.jurisdiction_code), incorporated_on: str(c.incorporation_date), company_type: str(c.company_type) },
      facets: [country && facet('country', country), industry && facet('industry', industry)].filter(Boolean) as string[],
      rank_score: rank(key),
      sources: sources('opencorporates', url, fetchedAt, { name: str(c.name), title: str(officer?.position), person_name: officerName, domain, industry, country, city }),
      // every industry the registry lists (the facet keeps the first), and the names the company had or trades under
      search_text: words(
        (c.industry_codes ?? []).map((i: any) => i?.industry_code?.description),
        (c.previous_names ?? []).map((n: any) => n?.company_name), (c.alternative_names ?? []).map((n: any) => n?.company_name),
      ),
    } satisfies EntityInput;
  });
}

/** Parses one provider file into entities; throws with a message naming the problem. */
export function parseProviderFile(provider: IngestProvider, text: string, fetchedAt = new Date().toISOString()): EntityInput[] {
  if (provider === 'sec_edgar') return secEdgar(text, fetchedAt);
  if (provider === 'grants_gov') return grantsGov(text, fetchedAt);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`${provider}: not JSON (${(err as Error).message})`);
  }
  return parseProviderDocument(provider, doc, fetchedAt);
}

/** The providers whose exports are JSON: their files may also come as JSON Lines, one document a line. */
export const JSON_PROVIDERS: readonly IngestProvider[] = ['openalex', 'orcid', 'nih_reporter', 'nsf_awards', 'opencorporates'];

/** The entities of one parsed JSON document of a provider (a whole file, or one line of a JSON Lines file). */
export function parseProviderDocument(provider: IngestProvider, doc: unknown, fetchedAt = new Date().toISOString()): EntityInput[] {
  switch (provider) {
    case 'openalex': return openalex(doc, fetchedAt);
    case 'orcid': return orcid(doc, fetchedAt);
    case 'nih_reporter': return nihReporter(doc, fetchedAt);
    case 'nsf_awards': return nsfAwards(doc, fetchedAt);
    case 'opencorporates': return openCorporates(doc, fetchedAt);
  }
  throw new Error(`unknown provider ${provider as string}`);
}
