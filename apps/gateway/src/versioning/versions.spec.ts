import { API_VERSIONS, ApiVersion, CURRENT_API_VERSION } from '@app/contracts';
import { hasChangesAfter, isKnownVersion, renderForVersion, VERSION_CHANGES, VersionChange } from './versions';

/** Future versions do not exist in the ApiVersion type yet; these tests model them. */
const v = (date: string) => date as ApiVersion;

/** A change that records it ran by appending its version to body.applied. */
const change = (version: string): VersionChange => ({
  version: v(version),
  description: `change of ${version}`,
  downgrade: (body) => {
    const b = body as { applied: string[] };
    return { ...b, applied: [...b.applied, version] };
  },
});

describe('renderForVersion', () => {
  // deliberately not in date order
  const changes = [change('2027-03-01'), change('2028-01-15'), change('2027-09-01')];
  const body = { applied: [] as string[] };

  it.each([
    ['2026-09-28', ['2028-01-15', '2027-09-01', '2027-03-01']],
    ['2027-03-01', ['2028-01-15', '2027-09-01']],
    ['2027-06-30', ['2028-01-15', '2027-09-01']],
    ['2027-09-01', ['2028-01-15']],
    ['2028-01-15', []],
    ['2029-01-01', []],
  ])('for a client on %s applies the downgrades of newer versions only, newest first: %p', (target, expected) => {
    expect(renderForVersion(body, v(target), changes)).toEqual({ applied: expected });
    // the gateway reshapes (and so parses a forwarded reply) exactly when a downgrade applies
    expect(hasChangesAfter(v(target), changes)).toBe(expected.length > 0);
  });

  it('chains each downgrade on the output of the previous one', () => {
    const rename: VersionChange = { version: v('2027-09-01'), description: 'name -> full_name', downgrade: (b: any) => ({ name: b.full_name }) };
    const split: VersionChange = { version: v('2028-01-15'), description: 'first/last -> full_name', downgrade: (b: any) => ({ full_name: `${b.first} ${b.last}` }) };
    expect(renderForVersion({ first: 'Ada', last: 'Lovelace' }, v('2026-09-28'), [rename, split])).toEqual({ name: 'Ada Lovelace' });
  });

  it('leaves the list of changes untouched', () => {
    const list = [...changes];
    renderForVersion(body, v('2026-09-28'), list);
    expect(list).toEqual(changes);
  });

  it('is the identity for the current version with the published changes', () => {
    const lead = { id: 'lead_x', object: 'lead' };
    expect(renderForVersion(lead, CURRENT_API_VERSION)).toBe(lead);
    expect(VERSION_CHANGES.every((c) => (API_VERSIONS as readonly string[]).includes(c.version))).toBe(true);
  });
});

describe('isKnownVersion', () => {
  it.each([
    ['2026-09-28', true],
    ['2026-09-29', false],
    ['2026-9-28', false],
    ['', false],
    ['latest', false],
  ])('%p -> %p', (value, known) => {
    expect(isKnownVersion(value)).toBe(known);
  });
});
