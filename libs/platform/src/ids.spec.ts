import { ID_PREFIX } from '@app/contracts';
import { newId, randomToken } from './ids';

/** Byte order, as the "C" collation and keyset pagination compare ids. */
const byteCompare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('newId', () => {
  it.each(Object.entries(ID_PREFIX))('%s ids start with %p', (_name, prefix) => {
    const id = newId(prefix);
    expect(id.startsWith(prefix)).toBe(true);
    expect(id).toHaveLength(prefix.length + 24);
  });

  it('is the prefix, 24 URL-safe characters, and at most 255 characters', () => {
    const id = newId(ID_PREFIX.lead);
    expect(id).toMatch(/^lead_[0-9A-Za-z]{24}$/);
    expect(id.length).toBeLessThanOrEqual(255);
  });

  it('ids made later sort after ids made earlier (byte order)', () => {
    const start = Date.UTC(2026, 8, 28);
    const times = [start, start + 1, start + 31, start + 32, start + 1000, start + 86_400_000, Date.UTC(2090, 0, 1)];
    const ids = times.map((t) => newId(ID_PREFIX.lead, t));
    const shuffled = [...ids].reverse();
    expect(shuffled.sort(byteCompare)).toEqual(ids);
    for (let i = 1; i < ids.length; i++) expect(byteCompare(ids[i - 1], ids[i])).toBe(-1);
  });

  it('ids made in sequence with the real clock never sort backwards', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(newId(ID_PREFIX.event));
      await new Promise((r) => setTimeout(r, 2));
    }
    expect([...ids].sort(byteCompare)).toEqual(ids);
  });

  it('ids of the same millisecond are still unique', () => {
    const now = Date.now();
    const ids = Array.from({ length: 10_000 }, () => newId(ID_PREFIX.lead, now));
    expect(new Set(ids).size).toBe(ids.length);
    // same time part, random rest
    expect(new Set(ids.map((id) => id.slice(0, 15))).size).toBe(1);
  });
});

describe('randomToken', () => {
  it.each([1, 8, 14, 64])('has exactly %p alphanumeric characters', (length) => {
    expect(randomToken(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
  });

  it('uses the whole alphabet', () => {
    const seen = new Set(randomToken(20_000));
    expect(seen.size).toBe(62);
  });
});
