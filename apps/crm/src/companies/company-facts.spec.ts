import { CompanyFact, Source } from '@app/contracts';
import { factRank, mergeCompanyFacts } from './company-facts';

const src = (provider: Source['provider'], field = 'country', value = 'x'): Source => ({ field, value, provider, source_url: `https://${provider}.test/r`, fetched_at: '2026-11-01T00:00:00.000Z' });
const empty = { industry: null, size: null, country: null, city: null, description: null, sources: [] as Source[] };
const fact = (field: CompanyFact['field'], value: string, source: Source | null): CompanyFact => ({ field, value, source });

describe('factRank', () => {
  it.each([
    ['opencorporates', 3], ['sec_edgar', 3], ['crawler', 2], ['openalex', 2], ['api', 1], ['import', 1], ['manual', 1],
  ] as const)('%s -> %d', (provider, rank) => expect(factRank(src(provider))).toBe(rank));
  it('no Source -> 0', () => expect(factRank(null)).toBe(0));
});

describe('mergeCompanyFacts', () => {
  it('fills null fields, each with its Source under the field it backs', () => {
    const merged = mergeCompanyFacts({ ...empty, sources: [src('api', 'company_name', 'Acme')] }, [
      fact('country', 'gb', src('opencorporates', 'country', 'GB')), fact('industry', 'software', src('crawler', 'organization', 'Acme')),
    ]);
    expect(merged).toMatchObject({ country: 'GB', industry: 'software', size: null });
    expect(merged!.sources.map((s) => [s.field, s.provider])).toEqual([['company_name', 'api'], ['country', 'opencorporates'], ['industry', 'crawler']]);
  });

  it('a higher-ranked record replaces a value and its Source; an equal or lower one does not', () => {
    const held = { ...empty, country: 'DE', sources: [src('api', 'country', 'DE')] };
    expect(mergeCompanyFacts(held, [fact('country', 'FR', src('manual'))])).toBeNull();
    expect(mergeCompanyFacts(held, [fact('country', 'FR', null)])).toBeNull();
    const replaced = mergeCompanyFacts(held, [fact('country', 'GB', src('opencorporates', 'country', 'GB'))]);
    expect(replaced).toMatchObject({ country: 'GB', sources: [expect.objectContaining({ field: 'country', provider: 'opencorporates' })] });
    expect(mergeCompanyFacts(replaced!, [fact('country', 'US', src('sec_edgar'))])).toBeNull();
  });

  it('an unsourced value is filled but gives way to any sourced one; the same value gains the Source', () => {
    const bare = mergeCompanyFacts(empty, [fact('country', 'de', null)]);
    expect(bare).toEqual({ ...empty, country: 'DE' });
    expect(mergeCompanyFacts(bare!, [fact('country', 'DE', src('api', 'country', 'DE'))])).toMatchObject({ country: 'DE', sources: [expect.objectContaining({ provider: 'api' })] });
  });

  it('never writes a null, a size outside the enumeration or a country that is no ISO code', () => {
    expect(mergeCompanyFacts(empty, [
      fact('size', '12-20', src('crawler')), fact('country', 'Germany', src('crawler')), fact('city', '  ', src('crawler')),
      { field: 'city', value: null, source: src('crawler') } as unknown as CompanyFact, { field: 'name', value: 'x', source: null } as unknown as CompanyFact,
    ])).toBeNull();
    expect(mergeCompanyFacts(empty, [fact('size', '51-200', src('crawler'))])).toMatchObject({ size: '51-200' });
  });
});
