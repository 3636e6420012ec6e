import { CreateLeadDto, ListLeadsQueryDto, UpdateLeadDto } from '@app/contracts/dto';
import { ApiError } from './api-error';
import { validateInput } from './validation';

const s = (n: number) => 'x'.repeat(n);
const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag-${i}`);

function failure(dto: new () => object, body: unknown, where: 'body' | 'query' = 'body'): ApiError {
  try {
    validateInput(dto, body, where);
  } catch (err) {
    return err as ApiError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

function expectRejected(dto: new () => object, body: unknown, param: string | undefined, where: 'body' | 'query' = 'body') {
  const err = failure(dto, body, where);
  expect(err).toBeInstanceOf(ApiError);
  expect({ code: err.code, status: err.status, param: err.param }).toEqual({ code: 'invalid_request', status: 400, param });
  expect(err.message).toEqual(expect.any(String));
  expect(err.message.length).toBeGreaterThan(0);
}

describe('validateInput(CreateLeadDto)', () => {
  const ok = { full_name: 'Acme Fund' };

  it.each<[string, Record<string, unknown>, string]>([
    ['lens not in the enum', { ...ok, lens: 'people' }, 'lens'],
    ['lens of the wrong type', { ...ok, lens: 1 }, 'lens'],
    ['first_name over 120', { first_name: s(121) }, 'first_name'],
    ['first_name not a string', { first_name: 5 }, 'first_name'],
    ['first_name not a string (full_name sent)', { first_name: 5, full_name: 'Ada' }, 'first_name'],
    ['last_name over 120', { last_name: s(121) }, 'last_name'],
    ['last_name not a string', { last_name: true, full_name: 'Ada' }, 'last_name'],
    ['no name at all', {}, 'full_name'],
    ['only other fields', { title: 'CEO', email: 'ceo@example.com' }, 'full_name'],
    ['blank first and last name', { first_name: '', last_name: '   ' }, 'full_name'],
    ['blank full_name', { full_name: '   ' }, 'full_name'],
    ['full_name over 240', { full_name: s(241) }, 'full_name'],
    ['full_name over 240 with a first_name', { first_name: 'Ada', full_name: s(241) }, 'full_name'],
    ['full_name not a string', { full_name: 5 }, 'full_name'],
    ['full_name not a string with a last_name', { last_name: 'Lovelace', full_name: 5 }, 'full_name'],
    ['title over 200', { ...ok, title: s(201) }, 'title'],
    ['title not a string', { ...ok, title: 5 }, 'title'],
    ['email without @', { ...ok, email: 'ada.example.com' }, 'email'],
    ['email with two @', { ...ok, email: 'ada@@example.com' }, 'email'],
    ['email with a space', { ...ok, email: 'ada lovelace@example.com' }, 'email'],
    ['email without a domain', { ...ok, email: 'ada@' }, 'email'],
    ['email not a string', { ...ok, email: 42 }, 'email'],
    ['phone not a string', { ...ok, phone: 2024561111 }, 'phone'],
    ['website not a URI', { ...ok, website: 'not a url' }, 'website'],
    ['website without a scheme separator', { ...ok, website: '://example.com' }, 'website'],
    ['website not a string', { ...ok, website: 5 }, 'website'],
    ['company_name not a string', { ...ok, company_name: 5 }, 'company_name'],
    ['company_domain not a domain', { ...ok, company_domain: 'not a domain' }, 'company_domain'],
    ['country not a code', { ...ok, country: 'XX' }, 'country'],
    ['country of 3 letters', { ...ok, country: 'USA' }, 'country'],
    ['country of 1 letter', { ...ok, country: 'U' }, 'country'],
    ['country a name', { ...ok, country: 'Germany' }, 'country'],
    ['country not a string', { ...ok, country: 49 }, 'country'],
    ['lawful_basis not in the enum', { ...ok, lawful_basis: 'whim' }, 'lawful_basis'],
    ['source_url not a URI', { ...ok, source_url: 'somewhere on the web' }, 'source_url'],
    ['source_url not a string', { ...ok, source_url: 5 }, 'source_url'],
    ['21 tags', { ...ok, tags: tags(21) }, 'tags'],
    ['a tag not a string', { ...ok, tags: ['vip', 5] }, 'tags'],
    ['a tag null', { ...ok, tags: ['vip', null] }, 'tags'],
    ['tags not an array', { ...ok, tags: 'vip' }, 'tags'],
    ['tags an object', { ...ok, tags: { vip: true } }, 'tags'],
    ['custom_fields a string', { ...ok, custom_fields: 'x' }, 'custom_fields'],
    ['custom_fields an array', { ...ok, custom_fields: [1, 2] }, 'custom_fields'],
    ['custom_fields a number', { ...ok, custom_fields: 5 }, 'custom_fields'],
    ['custom_fields with a nested object', { ...ok, custom_fields: { deal: { size: 1 } } }, 'custom_fields'],
    ['custom_fields with a null value', { ...ok, custom_fields: { deal: null } }, 'custom_fields'],
    ['an unknown field', { ...ok, favourite_color: 'blue' }, 'favourite_color'],
    ['a field of the lead resource that is not input', { ...ok, id: 'lead_x' }, 'id'],
    ['owner_id (not a create field)', { ...ok, owner_id: 'usr_x' }, 'owner_id'],
  ])('%s -> param %p', (_label, body, param) => {
    expectRejected(CreateLeadDto, body, param);
  });

  it.each([
    ['an array', [{ full_name: 'x' }]],
    ['a string', 'full_name'],
    ['a number', 5],
  ])('a body that is %s is rejected', (_label, body) => {
    expectRejected(CreateLeadDto, body, undefined);
  });

  it.each<[string, Record<string, unknown>]>([
    ['full_name only', { full_name: 'Acme Fund' }],
    ['first_name only', { first_name: 'Ada' }],
    ['last_name only', { last_name: 'Lovelace' }],
    ['limits exactly', { first_name: s(120), last_name: s(120), full_name: s(240), title: s(200), tags: tags(20) }],
    ['full_name at 240 with no other name', { full_name: s(240) }],
    ['every lens', { full_name: 'x', lens: 'grants' }],
    ['every field', {
      lens: 'investors', first_name: 'Ada', last_name: 'Lovelace', full_name: 'Ada Lovelace', title: 'Partner',
      email: 'ada@example.com', phone: '+1 202 456 1111', website: 'https://example.com', company_name: 'Acme',
      company_domain: 'acme.io', country: 'GB', lawful_basis: 'consent', source_url: 'https://example.com/team',
      tags: ['vip'], custom_fields: { deal_size: 10, note: 'warm', active: true },
    }],
    ['empty tags and custom_fields', { full_name: 'x', tags: [], custom_fields: {} }],
  ])('accepts %s', (_label, body) => {
    const dto = validateInput(CreateLeadDto, body, 'body');
    expect(dto).toBeInstanceOf(CreateLeadDto);
    expect({ ...dto }).toEqual(body);
  });

  it.each(['leads', 'investors', 'researchers', 'grants'])('accepts lens %p', (lens) => {
    expect(validateInput(CreateLeadDto, { full_name: 'x', lens }, 'body').lens).toBe(lens);
  });

  it.each(['legitimate_interest', 'consent', 'contract'])('accepts lawful_basis %p', (basis) => {
    expect(validateInput(CreateLeadDto, { full_name: 'x', lawful_basis: basis }, 'body').lawful_basis).toBe(basis);
  });
});

describe('validateInput(UpdateLeadDto)', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['first_name null', { first_name: null }, 'first_name'],
    ['last_name null', { last_name: null }, 'last_name'],
    ['title null', { title: null }, 'title'],
    ['first_name over 120', { first_name: s(121) }, 'first_name'],
    ['last_name over 120', { last_name: s(121) }, 'last_name'],
    ['title over 200', { title: s(201) }, 'title'],
    ['first_name not a string', { first_name: 5 }, 'first_name'],
    ['email (not a PATCH field)', { email: 'ada@example.com' }, 'email'],
    ['full_name (not a PATCH field)', { full_name: 'Ada' }, 'full_name'],
    ['lens (not a PATCH field)', { lens: 'leads' }, 'lens'],
    ['tags (not a PATCH field)', { tags: ['vip'] }, 'tags'],
    ['an unknown field', { favourite_color: 'blue' }, 'favourite_color'],
    ['phone not a string', { phone: 5 }, 'phone'],
    ['website not a URI', { website: 'not a url' }, 'website'],
    ['country of 3 letters', { country: 'USA' }, 'country'],
    ['country not a code', { country: 'XX' }, 'country'],
    ['lawful_basis not in the enum', { lawful_basis: 'whim' }, 'lawful_basis'],
    ['lawful_basis null', { lawful_basis: null }, 'lawful_basis'],
    ['owner_id not a string', { owner_id: 5 }, 'owner_id'],
    ['custom_fields null', { custom_fields: null }, 'custom_fields'],
    ['custom_fields an array', { custom_fields: ['a'] }, 'custom_fields'],
    ['custom_fields with a nested object', { custom_fields: { a: { b: 1 } } }, 'custom_fields'],
  ])('%s -> param %p', (_label, body, param) => {
    expectRejected(UpdateLeadDto, body, param);
  });

  it.each<[string, Record<string, unknown>]>([
    ['nothing', {}],
    ['null clears phone, website, country and owner_id', { phone: null, website: null, country: null, owner_id: null }],
    ['custom_fields with a null value (clears a key)', { custom_fields: { a: null, b: 'x', c: 1, d: false } }],
    ['every field', {
      first_name: 'Ada', last_name: 'King', title: 'Countess', phone: '+44 20 7946 0958', website: 'https://example.com',
      country: 'GB', lawful_basis: 'contract', owner_id: 'usr_x', custom_fields: { a: 1 },
    }],
  ])('accepts %s', (_label, body) => {
    const dto = validateInput(UpdateLeadDto, body, 'body');
    expect({ ...dto }).toEqual(body);
  });
});

describe('validateInput(ListLeadsQueryDto)', () => {
  it.each<[Record<string, unknown>, string]>([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: '-1' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: '010' }, 'limit'],
    [{ lens: 'people' }, 'lens'],
    [{ updated_since: 'yesterday' }, 'updated_since'],
    [{ updated_since: '2026-09-28' }, 'updated_since'],
    [{ sort: 'asc' }, 'sort'],
  ])('%p -> param %p', (query, param) => {
    expectRejected(ListLeadsQueryDto, query, param, 'query');
  });

  it.each(['1', '25', '100'])('accepts limit %p', (limit) => {
    expect(validateInput(ListLeadsQueryDto, { limit }, 'query').limit).toBe(limit);
  });

  it('accepts every filter', () => {
    const query = { limit: '10', starting_after: 'abc', lens: 'leads', tag: 'vip', stage_id: 'st_x', q: 'ada', updated_since: '2026-09-28T10:00:00Z' };
    expect({ ...validateInput(ListLeadsQueryDto, query, 'query') }).toEqual(query);
  });
});
