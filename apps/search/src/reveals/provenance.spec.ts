import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SourceRecord } from '@app/contracts';
import { EntityRow } from '../entities/entities.repository';
import { INGEST_PROVIDERS, IngestProvider, parseProviderFile } from '../../../admin/src/ingest/connectors';
import { companyFactsOf, isE164, revealSources, sourceProblem } from './provenance';

const src = (field: string, value: string, url = 'https://www.sec.gov/f', provider: SourceRecord['provider'] = 'sec_edgar'): SourceRecord =>
  ({ field, value, provider, source_url: url, fetched_at: '2026-11-01T00:00:00.000Z' });
const entity = (fields: Partial<EntityRow>): EntityRow => ({
  id: 'ent_1', lens: 'leads', name: 'Ann Lee', person_name: 'Ann Lee', first_name: 'Ann', last_name: 'Lee', title: null, organization: 'Acme',
  location: null, country: null, domain: 'acme.test', email: null, phone: null, details: {}, sources: [src('name', 'Ann Lee')], ...fields,
});
const NOW = '2026-11-25T00:00:00.000Z';

describe('revealSources', () => {
  it('a carried email and phone cite the record that carried them, with its fetch time', () => {
    const e = entity({ email: 'Ann@acme.test', phone: '+14155550100', sources: [src('name', 'Ann Lee'), src('email', 'Ann@acme.test', 'https://orcid.org/1', 'orcid')] });
    const sources = revealSources(e, 'ann@acme.test', '+14155550100', NOW);
    // the email's own Source backs it already (case aside); the phone cites the entity's record
    expect(sources).toEqual([...e.sources, { ...src('phone', '+14155550100'), fetched_at: '2026-11-01T00:00:00.000Z' }]);
  });

  it('a pattern address cites the record of the domain, valued the address, fetched at the check', () => {
    const e = entity({ sources: [src('name', 'Ann Lee'), src('domain', 'acme.test', 'https://acme.test/team', 'crawler')] });
    expect(revealSources(e, 'ann.lee@acme.test', null, NOW).at(-1)).toEqual({ field: 'email', value: 'ann.lee@acme.test', provider: 'crawler', source_url: 'https://acme.test/team', fetched_at: NOW });
    expect(revealSources(entity({}), 'ann.lee@acme.test', null, NOW).at(-1)).toMatchObject({ field: 'email', provider: 'sec_edgar', source_url: 'https://www.sec.gov/f' });
  });

  it('an entity without any Source gets none made up', () => {
    expect(revealSources(entity({ sources: [] }), 'ann.lee@acme.test', '+14155550100', NOW)).toEqual([]);
  });
});

describe('companyFactsOf', () => {
  it('industry, size, city, description from details and country, each with its Source; nothing unsourced or outside the enumerations', () => {
    const e = entity({ country: 'GB', details: { industry: 'software', size: '51-200', city: 'Leeds', description: ' ' }, sources: [src('name', 'Ann Lee'), src('city', 'Leeds', 'https://x.test/c', 'crawler')] });
    expect(companyFactsOf(e)).toEqual([
      { field: 'industry', value: 'software', source: src('industry', 'software') },
      { field: 'size', value: '51-200', source: src('size', '51-200') },
      { field: 'country', value: 'GB', source: src('country', 'GB') },
      { field: 'city', value: 'Leeds', source: src('city', 'Leeds', 'https://x.test/c', 'crawler') },
    ]);
    expect(companyFactsOf(entity({ country: 'Germany', details: { size: '12-20' } }))).toEqual([]);
    expect(companyFactsOf(entity({ country: 'GB', sources: [] }))).toEqual([]);
  });
});

describe('sourceProblem', () => {
  it.each([
    [src('name', 'x'), null],
    [{ ...src('name', 'x'), provider: 'linkedin' }, /provider/],
    [{ ...src('name', 'x'), source_url: '' }, /absolute/],
    [{ ...src('name', 'x'), source_url: 'ftp://sec.gov/x' }, /http/],
    [{ ...src('name', 'x'), value: '' }, /value/],
    [null, /object/],
  ])('%j', (source, problem) => {
    if (problem === null) expect(sourceProblem(source)).toBeNull();
    else expect(sourceProblem(source)).toMatch(problem);
  });

  it('every Source the connectors make of the sample files passes', () => {
    const samples = join(__dirname, '../../samples');
    const fileOf: Record<IngestProvider, string> = {
      openalex: 'openalex-authors.json', orcid: 'orcid-record.json', sec_edgar: 'sec-edgar-form-d-primary_doc.xml', nih_reporter: 'nih-reporter-projects.json',
      nsf_awards: 'nsf-awards.json', grants_gov: 'grants-gov-extract.xml', opencorporates: 'opencorporates-companies.json',
    };
    expect(readdirSync(samples).length).toBeGreaterThanOrEqual(INGEST_PROVIDERS.length);
    for (const provider of INGEST_PROVIDERS) {
      for (const e of parseProviderFile(provider, readFileSync(join(samples, fileOf[provider]), 'utf8'))) {
        for (const s of e.sources) expect({ s, problem: sourceProblem(s) }).toEqual({ s, problem: null });
      }
    }
  });
});

describe('isE164', () => {
  it.each([['+14155550100', true], ['4155550100', false], ['+0123456789', false], ['+1 415 555 0100', false], [null, false]])('%p -> %p', (p, ok) => expect(isE164(p)).toBe(ok));
});
