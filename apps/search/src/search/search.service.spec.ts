import { OpportunityProfile, SearchHit } from '@app/contracts';
import { PageEntity } from '../entities/entities.repository';
import { maskEmail, maskPhone } from '../entities/entity';
import { hitJson, matchScore, pageJson } from './search.service';

/** A page entity as PostgreSQL hands it over: details and sources as json text (here jsonb's spacing and key order, as a row written before migration 0024 holds them). */
function entity(details: string, over: Partial<PageEntity> = {}): PageEntity {
  return {
    id: 'ent_1', lens: 'investors', name: 'Vertex Lumen Ventures', person_name: 'Anna Khan', first_name: 'Anna', last_name: 'Khan', title: 'Partner',
    organization: 'Vertex Lumen', location: 'Seattle, WA', country: 'US', domain: 'vertexlumen.vc', email: 'anna@vertexlumen.vc', phone: '+12065550100',
    details_json: details, sources_json: '[{"field": "name", "value": "Vertex Lumen Ventures", "provider": "sec_edgar"}]', revealed: false, revealed_email_status: null,
    ...over,
  };
}

const DETAILS = '{"type": "vc", "stages": ["seed"], "sectors": ["fintech"], "check_size_usd": {"max": 1800000, "min": 100000}}';

/** The hit as it was made before pages were written as text: every field, details without email and phone. */
function expectedHit(row: PageEntity, profile?: OpportunityProfile): SearchHit {
  const { email: _email, phone: _phone, ...details } = JSON.parse(row.details_json) as Record<string, unknown>;
  void _email;
  void _phone;
  return {
    entity_id: row.id, lens: row.lens, name: row.name, person_name: row.person_name, title: row.title, organization: row.organization, location: row.location,
    email_masked: maskEmail(row.email), email_status: row.revealed ? (row.revealed_email_status ?? null) : null, phone_masked: maskPhone(row.phone),
    revealed: row.revealed === true, match_score: row.lens === 'investors' ? matchScore(details, row.location, profile) : null,
    details, sources: JSON.parse(row.sources_json),
  };
}

describe('a search page written as JSON text (hitJson, pageJson)', () => {
  it('a hit parses to the SearchHit of the entity, keys in the spec order, details and sources spliced in as PostgreSQL wrote them', () => {
    const row = entity(DETAILS);
    const text = hitJson(row, undefined);
    expect(JSON.parse(text)).toEqual(expectedHit(row));
    expect(Object.keys(JSON.parse(text))).toEqual(Object.keys(expectedHit(row)));
    expect(text).toContain(`"details":${DETAILS},"sources":${row.sources_json}}`);
    // the contact is masked, never in clear
    expect(text).not.toContain('anna@vertexlumen.vc');
    expect(text).not.toContain('+12065550100');
  });

  it('a revealed hit carries its email status; match_score follows the profile for investors only', () => {
    const profile: OpportunityProfile = { sectors: ['Fintech'], stage: 'seed', amount_usd: 500_000, location: 'seattle' };
    const revealed = entity(DETAILS, { revealed: true, revealed_email_status: 'valid' });
    expect(JSON.parse(hitJson(revealed, profile))).toEqual(expectedHit(revealed, profile));
    expect(JSON.parse(hitJson(revealed, profile)).match_score).toBe(100);
    expect(JSON.parse(hitJson(revealed, undefined)).match_score).toBeNull();
    const lead = entity('{"industry": "software"}', { lens: 'leads' });
    expect(JSON.parse(hitJson(lead, profile)).match_score).toBeNull();
  });

  it('details that carry an email or phone key lose them (top level), as before', () => {
    const row = entity('{"email": "x@y.com", "phone": "+1 555", "type": "vc", "contact": {"email": "kept@y.com"}}');
    expect(JSON.parse(hitJson(row, undefined)).details).toEqual({ type: 'vc', contact: { email: 'kept@y.com' } });
    expect(hitJson(row, undefined)).not.toContain('x@y.com');
    // a value that only mentions them stays as written
    const mention = entity('{"note": "email: none, phone: none"}');
    expect(hitJson(mention, undefined)).toContain('"details":{"note": "email: none, phone: none"}');
  });

  it('details written as JSON.stringify writes them (the json column since migration 0024), or with other spacing, lose them too', () => {
    for (const text of ['{"email":"x@y.com","phone":"+1 555","type":"vc"}', '{"type":"vc","phone" :"+1 555","email"\n:\t"x@y.com"}', '{ "email" : "x@y.com" , "type" : "vc" , "phone" : "+1 555" }']) {
      const hit = hitJson(entity(text), undefined);
      expect(JSON.parse(hit).details).toEqual({ type: 'vc' });
      expect(hit).not.toContain('x@y.com');
      expect(hit).not.toContain('+1 555');
    }
    const plain = entity('{"type":"vc","stages":["seed"]}');
    expect(hitJson(plain, undefined)).toContain('"details":{"type":"vc","stages":["seed"]},"sources":');
  });

  it('a page parses to SearchResults with data last, empty or not', () => {
    const head = { object: 'search_results' as const, lens: 'investors' as const, query: 'fintech', page: 2, per_page: 25 as const, has_more: true, credits_charged: 1, livemode: true };
    const rows = [entity(DETAILS), entity(DETAILS, { id: 'ent_2' })];
    const page = pageJson(head, rows.map((row) => hitJson(row, undefined)));
    expect(JSON.parse(page.json)).toEqual({ ...head, data: rows.map((row) => expectedHit(row)) });
    expect(Object.keys(JSON.parse(page.json)).at(-1)).toBe('data');
    expect(JSON.parse(pageJson(head, []).json)).toEqual({ ...head, data: [] });
  });
});
