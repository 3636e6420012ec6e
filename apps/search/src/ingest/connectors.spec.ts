import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { searchTextOf } from '../entities/entity';
import { parseProviderFile } from '../../../admin/src/ingest/connectors';

const sample = (name: string) => readFileSync(join(__dirname, '../../samples', name), 'utf8');
const AT = '2026-11-20T00:00:00.000Z';

describe('ingestion connectors read the providers own formats', () => {
  it('OpenAlex authors and institutions', () => {
    const [doudna, tanaka] = parseProviderFile('openalex', sample('openalex-authors.json'), AT);
    expect(doudna).toMatchObject({ ext_key: 'openalex:A5023888391', lens: 'researchers', name: 'Jennifer A. Doudna', organization: 'University of California, Berkeley', country: 'US' });
    expect(doudna.details).toMatchObject({ works_count: 912, orcid: '0000-0001-6187-6610', topics: ['CRISPR and Genetic Engineering', 'RNA Research and Splicing'] });
    expect(doudna.facets).toEqual(expect.arrayContaining(['region:north_america', 'country:us']));
    expect(doudna.sources[0]).toEqual({ field: 'name', value: 'Jennifer A. Doudna', provider: 'openalex', source_url: 'https://openalex.org/A5023888391', fetched_at: AT });
    expect(tanaka.facets).toContain('region:asia');
    const [berkeley] = parseProviderFile('openalex', sample('openalex-institutions.json'), AT);
    expect(berkeley).toMatchObject({ ext_key: 'openalex:I95457486', domain: 'berkeley.edu', location: 'Berkeley, California, US' });
  });

  it('ORCID v3.0 record', () => {
    const [r] = parseProviderFile('orcid', sample('orcid-record.json'), AT);
    expect(r).toMatchObject({ ext_key: 'orcid:0000-0002-1825-0097', name: 'Josiah Carberry', email: 'josiah.carberry@brown.example.edu', organization: 'Brown University', title: 'Professor' });
    expect(r.details).toMatchObject({ works_count: 2, orcid: '0000-0002-1825-0097', topics: ['psychoceramics', 'cracked pots'] });
  });

  it('SEC EDGAR Form D: the fund and its related persons', () => {
    const entities = parseProviderFile('sec_edgar', sample('sec-edgar-form-d-primary_doc.xml'), AT);
    expect(entities).toHaveLength(3);
    expect(entities[0]).toMatchObject({ ext_key: 'sec_edgar:0001912345', lens: 'investors', name: 'Harbor Peak Ventures Fund II, L.P.', person_name: 'Maria Alvarez', phone: '+14155550142' });
    expect(entities[0].details).toMatchObject({ check_size_usd: { min: 250000, max: 75000000 }, last_filing_at: '2026-03-14', type: 'vc', state: 'CA' });
    expect(entities[0].facets).toEqual(expect.arrayContaining(['type:vc', 'state:ca']));
    expect(entities[2]).toMatchObject({ person_name: 'David Chen', title: 'Executive Officer' });
  });

  it('NIH RePORTER, NSF awards and Grants.gov become grants', () => {
    const [nih] = parseProviderFile('nih_reporter', sample('nih-reporter-projects.json'), AT);
    expect(nih).toMatchObject({ ext_key: 'nih_reporter:10912345', lens: 'grants', person_name: 'Alicia Nguyen' });
    expect(nih.details).toMatchObject({ agency: 'NIH', program: 'NCI', mechanism: 'R01', amount: 612345, deadline: '2027-06-30' });
    const [nsf] = parseProviderFile('nsf_awards', sample('nsf-awards.json'), AT);
    expect(nsf).toMatchObject({ ext_key: 'nsf_awards:2512345', email: 'rlarsen@cmu.example.edu' });
    expect(nsf.details).toMatchObject({ agency: 'NSF', amount: 599999, deadline: '2028-08-31' });
    const gg = parseProviderFile('grants_gov', sample('grants-gov-extract.xml'), AT);
    expect(gg).toHaveLength(2);
    expect(gg[0].details).toMatchObject({ agency: 'DOE', mechanism: 'cooperative_agreement', amount: 2000000, deadline: '2027-01-15', opportunity_number: 'DE-FOA-0003456' });
    expect(gg[1]).toMatchObject({ organization: 'Health Resources & Services Administration', person_name: 'Pat Morgan' });
  });

  it('OpenCorporates companies become leads', () => {
    const [nw, bc] = parseProviderFile('opencorporates', sample('opencorporates-companies.json'), AT);
    expect(nw).toMatchObject({ ext_key: 'opencorporates:gb/12345678', lens: 'leads', country: 'GB', person_name: 'Sarah Jane Wilson', title: 'director' });
    expect(nw.facets).toEqual(expect.arrayContaining(['country:gb', 'industry:software']));
    expect(bc).toMatchObject({ country: 'US', person_name: null });
  });

  it('free text matches topics, keywords, sectors, programs, agencies and mechanisms of every provider', () => {
    const text = (provider: Parameters<typeof parseProviderFile>[0], file: string, at = 0) => searchTextOf(parseProviderFile(provider, sample(file), AT)[at]);
    expect(text('openalex', 'openalex-authors.json')).toEqual(expect.stringContaining('CRISPR and Genetic Engineering'));
    expect(text('openalex', 'openalex-institutions.json')).toEqual(expect.stringContaining('Machine Learning'));
    expect(text('orcid', 'orcid-record.json')).toEqual(expect.stringMatching(/psychoceramics.*cracked pots/));
    expect(text('sec_edgar', 'sec-edgar-form-d-primary_doc.xml')).toEqual(expect.stringContaining('Pooled Investment Fund Venture Capital Fund vc'));
    expect(text('nih_reporter', 'nih-reporter-projects.json')).toEqual(expect.stringContaining('NIH NCI R01 National Cancer Institute'));
    expect(text('nsf_awards', 'nsf-awards.json')).toEqual(expect.stringContaining('NSF Robust Intelligence Standard Grant'));
    expect(text('grants_gov', 'grants-gov-extract.xml')).toEqual(expect.stringContaining('DOE 81.086 cooperative_agreement DOE-GFO 81.086 Science and Technology'));
    expect(text('opencorporates', 'opencorporates-companies.json')).toEqual(expect.stringContaining('software'));
  });

  it('refuses what is not the format', () => {
    expect(() => parseProviderFile('orcid', '<xml/>')).toThrow(/not JSON/);
  });
});
