import { PageEntity, RowVersions } from './entities.repository';

const entity = (id: string): Omit<PageEntity, 'revealed' | 'revealed_email_status'> => ({
  id, lens: 'investors', name: `Name ${id}`, person_name: null, first_name: null, last_name: null, title: null, organization: null, location: null,
  country: null, domain: null, email: null, phone: null, details_json: '{}', sources_json: '[]',
});

describe('RowVersions (the rows of recent pages, with the version each was read as)', () => {
  it('tells the version kept of an id only at the address it was kept at', () => {
    const versions = new RowVersions(10);
    versions.keep('ent_a', '(1,2)', '700', entity('ent_a'));
    expect(versions.at('ent_a', '(1,2)')).toEqual({ tid: '(1,2)', v: '700', entity: entity('ent_a') });
    // asked elsewhere (the index saw it at another address), or with no address: not told, so the row is written
    expect(versions.at('ent_a', '(1,3)')).toBeUndefined();
    expect(versions.at('ent_a', null)).toBeUndefined();
    expect(versions.at('ent_b', '(1,2)')).toBeUndefined();
    // a newer version replaces the one kept
    versions.keep('ent_a', '(4,1)', '812', { ...entity('ent_a'), name: 'Renamed' });
    expect(versions.at('ent_a', '(1,2)')).toBeUndefined();
    expect(versions.at('ent_a', '(4,1)')).toMatchObject({ v: '812', entity: { name: 'Renamed' } });
  });

  it('keeps at most its size, dropping the row kept longest ago', () => {
    const versions = new RowVersions(2);
    versions.keep('ent_a', '(1,1)', '1', entity('ent_a'));
    versions.keep('ent_b', '(1,2)', '1', entity('ent_b'));
    versions.keep('ent_a', '(1,1)', '1', entity('ent_a')); // kept again: now the newest
    versions.keep('ent_c', '(1,3)', '1', entity('ent_c'));
    expect(versions.at('ent_b', '(1,2)')).toBeUndefined();
    expect(versions.at('ent_a', '(1,1)')).toBeDefined();
    expect(versions.at('ent_c', '(1,3)')).toBeDefined();
  });

  it('keeps nothing at size 0 (SEARCH_ROW_CACHE=0)', () => {
    const versions = new RowVersions(0);
    versions.keep('ent_a', '(1,1)', '1', entity('ent_a'));
    expect(versions.at('ent_a', '(1,1)')).toBeUndefined();
  });
});
