import { Lens, SourceRecord } from '@app/contracts';
import { EntityInput, facet } from './entity';

const FIRST = ['James', 'Maria', 'Wei', 'Aisha', 'Lukas', 'Sofia', 'Daniel', 'Priya', 'Mateo', 'Emma', 'Kenji', 'Olivia', 'Omar', 'Chloe', 'Ivan', 'Grace', 'Noah', 'Elena', 'Samuel', 'Hannah', 'Ravi', 'Lena', 'Diego', 'Anna'];
const LAST = ['Smith', 'Garcia', 'Chen', 'Khan', 'Muller', 'Rossi', 'Kim', 'Patel', 'Silva', 'Johnson', 'Tanaka', 'Brown', 'Haddad', 'Martin', 'Petrov', 'Lee', 'Nguyen', 'Novak', 'Cohen', 'Fischer', 'Sharma', 'Larsen', 'Lopez', 'Walsh'];
const WORDS = ['Blue', 'North', 'Summit', 'Harbor', 'Apex', 'Cedar', 'Granite', 'Lumen', 'Vertex', 'Quantum', 'Orbit', 'Pioneer', 'Atlas', 'Beacon', 'Falcon', 'Nimbus', 'Redwood', 'Silver', 'Horizon', 'Keystone'];
const INDUSTRIES = ['software', 'fintech', 'healthcare', 'biotech', 'climate', 'retail', 'logistics', 'education', 'energy', 'security', 'robotics', 'media'];
const COUNTRIES: [string, string, string][] = [['US', 'San Francisco, CA', 'north_america'], ['US', 'New York, NY', 'north_america'], ['US', 'Boston, MA', 'north_america'], ['GB', 'London', 'europe'], ['DE', 'Berlin', 'europe'], ['FR', 'Paris', 'europe'], ['CA', 'Toronto, ON', 'north_america'], ['IN', 'Bangalore', 'asia'], ['JP', 'Tokyo', 'asia'], ['AU', 'Sydney', 'oceania'], ['BR', 'Sao Paulo', 'south_america'], ['IL', 'Tel Aviv', 'middle_east']];
const TITLES = ['CEO', 'CTO', 'VP Sales', 'Head of Marketing', 'Founder', 'COO', 'Director of Engineering', 'Head of Growth'];
const STAGES = ['pre_seed', 'seed', 'series_a', 'series_b', 'series_c', 'growth'];
const INVESTOR_TYPES = ['vc', 'angel', 'family_office', 'corporate', 'accelerator', 'private_equity'];
const TOPICS = ['machine learning', 'genomics', 'climate modeling', 'immunology', 'quantum computing', 'materials science', 'neuroscience', 'economics', 'robotics', 'epidemiology', 'oncology', 'cryptography'];
const INSTITUTIONS = ['Stanford University', 'MIT', 'University of Oxford', 'ETH Zurich', 'University of Toronto', 'Tsinghua University', 'University of Tokyo', 'Max Planck Institute', 'Harvard University', 'UC Berkeley'];
const AGENCIES: [string, string[], string[]][] = [
  ['NIH', ['NCI', 'NIAID', 'NHLBI', 'NIMH'], ['R01', 'R21', 'K99', 'U01']],
  ['NSF', ['CISE', 'ENG', 'BIO', 'GEO'], ['standard', 'continuing', 'career']],
  ['DOE', ['ARPA-E', 'Office of Science'], ['cooperative_agreement', 'grant']],
  ['USDA', ['NIFA'], ['grant']],
  ['NASA', ['SMD', 'STMD'], ['grant', 'cooperative_agreement']],
];
const STATES = ['CA', 'NY', 'MA', 'TX', 'WA', 'IL', 'CO', 'FL'];

/** Deterministic per index: seed n always makes the same entity (re-seeding updates, never duplicates). */
function rng(seed: number): () => number {
  let t = (seed * 2654435761) >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)];

/**
 * A function of one string kept per argument: the generator's strings come from the fixed lists
 * above (a few hundred in all), and a seed of millions would otherwise make each again for every
 * entity (regular expressions, case mapping, dates), a part of a seed's CPU in search.
 */
function remembered(of: (s: string) => string): (s: string) => string {
  const known = new Map<string, string>();
  return (s) => {
    let v = known.get(s);
    if (v === undefined) known.set(s, (v = of(s)));
    return v;
  };
}
const slug = remembered((s) => s.toLowerCase().replace(/[^a-z0-9]+/g, ''));
const capitalized = remembered((s) => s.replace(/\b\w/g, (c) => c.toUpperCase()));
/** `YYYY-MM-DD` of a day number (days since 1970-01-01), kept per day. */
const DAYS: string[] = [];
const dayOf = (day: number): string => (DAYS[day] ??= new Date(day * 86_400_000).toISOString().slice(0, 10));
const FILED_FROM = Date.UTC(2024, 0, 1) / 86_400_000;

/**
 * Every domain of the demo corpus ends with this reserved top-level domain (RFC 2606): it exists
 * nowhere on the internet, so `npm start`'s mail sandbox (tools/mesh/demo-sandbox.ts) answers for
 * it alone and can never answer for a real domain.
 */
export const DEMO_TLD = '.example';

/** One source record of a seeded entity (a function of the module's: no closure made per entity, which the bundle would name). */
function source(field: string, value: string, provider: SourceRecord['provider'], url: string, fetchedAt: string): SourceRecord {
  return { field, value, provider, source_url: url, fetched_at: fetchedAt };
}

export function seedEntity(n: number, fetchedAt = '2026-11-01T00:00:00.000Z'): EntityInput {
  const r = rng(n + 1);
  const lens: Lens = (['leads', 'investors', 'researchers', 'grants'] as const)[n % 4];
  const first = pick(r, FIRST);
  const last = pick(r, LAST);
  const [country, city, region] = pick(r, COUNTRIES);
  const orgName = `${pick(r, WORDS)} ${pick(r, WORDS)}`;
  const rank = Math.floor(r() * 1_000_000);
  const hasEmail = r() < 0.7;
  const phone = r() < 0.5 ? `+1415555${String(1000 + (n % 9000)).padStart(4, '0')}` : null;
  if (lens === 'leads') {
    const industry = pick(r, INDUSTRIES);
    const company = `${orgName} ${industry === 'software' ? 'Labs' : 'Inc'}`;
    const domain = `${slug(orgName)}${n}${DEMO_TLD}`;
    const size = pick(r, ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001+']);
    const title = pick(r, TITLES);
    const url = `https://${domain}/team`;
    return {
      ext_key: `seed:${n}`, lens, name: `${first} ${last}`, person_name: `${first} ${last}`, first_name: first, last_name: last, title,
      organization: company, location: `${city}, ${country}`, country, domain, email: hasEmail ? `${slug(first)}.${slug(last)}@${domain}` : null, phone,
      details: { industry, size, company_domain: domain },
      facets: [facet('industry', industry), facet('country', country), facet('size', size)],
      rank_score: rank,
      sources: [source('name', `${first} ${last}`, 'crawler', url, fetchedAt), source('organization', company, 'crawler', url, fetchedAt), source('title', title, 'crawler', url, fetchedAt)],
    };
  }
  if (lens === 'investors') {
    const stages = [...new Set([pick(r, STAGES), pick(r, STAGES)])];
    const sectors = [...new Set([pick(r, INDUSTRIES), pick(r, INDUSTRIES)])];
    const type = pick(r, INVESTOR_TYPES);
    const min = (1 + Math.floor(r() * 20)) * 50_000;
    const max = min * (2 + Math.floor(r() * 20));
    const state = pick(r, STATES);
    const fund = `${orgName} ${type === 'angel' ? 'Angels' : 'Ventures'}${n > 1000 ? ` ${Math.floor(n / 1000)}` : ''}`;
    const domain = `${slug(orgName)}vc${n}${DEMO_TLD}`;
    const cik = String(1_000_000 + n);
    const url = `https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=${cik}`;
    const filed = dayOf(FILED_FROM + Math.floor(r() * 900));
    return {
      ext_key: `seed:${n}`, lens, name: fund, person_name: `${first} ${last}`, first_name: first, last_name: last, title: 'Managing Partner',
      organization: fund, location: `${city}, ${country}`, country, domain, email: hasEmail ? `${slug(first)}@${domain}` : null, phone,
      details: { stages, sectors, check_size_usd: { min, max }, last_filing_at: filed, type, state },
      facets: [...stages.map((s) => facet('stage', s)), ...sectors.map((s) => facet('sector', s)), facet('type', type), facet('state', state)],
      num_min: min, num_max: max, rank_score: rank, search_text: type,
      sources: [source('name', fund, 'sec_edgar', url, fetchedAt), source('person_name', `${first} ${last}`, 'sec_edgar', url, fetchedAt), source('check_size_usd', `${min}-${max}`, 'sec_edgar', url, fetchedAt)],
    };
  }
  if (lens === 'researchers') {
    const topics = [...new Set([pick(r, TOPICS), pick(r, TOPICS)])];
    const institution = pick(r, INSTITUTIONS);
    const works = Math.floor(r() * 400);
    const lastYear = 2015 + Math.floor(r() * 12);
    const orcid = `0000-000${n % 10}-${String(1000 + (n % 9000))}-${String(1000 + ((n * 7) % 9000))}`;
    const domain = `${slug(institution)}.edu${DEMO_TLD}`;
    const url = `https://orcid.org/${orcid}`;
    return {
      ext_key: `seed:${n}`, lens, name: `${first} ${last}`, person_name: `${first} ${last}`, first_name: first, last_name: last, title: 'Professor',
      organization: institution, location: `${city}, ${country}`, country, domain, email: hasEmail ? `${slug(first)}.${slug(last)}@${domain}` : null, phone: null,
      details: { topics, works_count: works, orcid, institution, region, last_active_year: lastYear },
      facets: [facet('region', region), facet('country', country), facet('institution', institution)],
      num_min: works, num_max: lastYear, rank_score: rank,
      sources: [source('name', `${first} ${last}`, 'orcid', url, fetchedAt), source('organization', institution, 'openalex', `https://openalex.org/A${5000000000 + n}`, fetchedAt)],
    };
  }
  const [agency, programs, mechanisms] = pick(r, AGENCIES);
  const program = pick(r, programs);
  const mechanism = pick(r, mechanisms);
  const amount = (1 + Math.floor(r() * 200)) * 10_000;
  const deadlineDay = Math.floor(Date.UTC(2026, 0, 1) / 86_400_000) + Math.floor(r() * 700);
  const deadline = dayOf(deadlineDay);
  const topic = pick(r, TOPICS);
  const title = `${capitalized(topic)} ${pick(r, ['Research', 'Innovation', 'Training', 'Infrastructure'])} Program ${n}`;
  const url = `https://www.grants.gov/search-results-detail/${300000 + n}`;
  return {
    ext_key: `seed:${n}`, lens, name: title, person_name: `${first} ${last}`, first_name: first, last_name: last, title: 'Program Officer',
    organization: `${agency} ${program}`, location: 'United States', country: 'US', domain: `${slug(agency)}.gov${DEMO_TLD}`,
    email: hasEmail ? `${slug(first)}.${slug(last)}@${slug(agency)}.gov${DEMO_TLD}` : null, phone,
    details: { agency, program, mechanism, amount, deadline, opportunity_number: `${agency}-${26000 + n}` },
    facets: [facet('agency', agency), facet('program', program), facet('mechanism', mechanism)],
    num_min: amount, num_max: deadlineDay, rank_score: rank, search_text: topic,
    sources: [source('name', title, 'grants_gov', url, fetchedAt), source('agency', agency, 'grants_gov', url, fetchedAt)],
  };
}
