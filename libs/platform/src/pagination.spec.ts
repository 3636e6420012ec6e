import { DomainError } from './domain-error';
import { decodeCursor, encodeCursor, toListPage } from './pagination';

function rejection(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

describe('cursor', () => {
  it.each(['lead_0abcdefghjAAAAAAAAAAAAAA', 'co_x', 'evt_0000000000zzzzzzzzzzzzzz', 'lead_with:colons:and/ slashes'])('round-trips %p', (id) => {
    const cursor = encodeCursor(id);
    expect(decodeCursor(cursor)).toBe(id);
  });

  it('is opaque: the id does not appear in it and it is URL-safe', () => {
    const cursor = encodeCursor('lead_0abcdefghj');
    expect(cursor).not.toContain('lead_');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  const valid = encodeCursor('lead_0abcdefghjAAAAAAAAAAAAAA');
  it.each([
    ['garbage', 'not a cursor!'],
    ['empty', ''],
    ['a bare id', 'lead_0abcdefghjAAAAAAAAAAAAAA'],
    ['another version', Buffer.from('v2:lead_x').toString('base64url')],
    ['no id after the version', Buffer.from('v1:').toString('base64url')],
    ['padded', `${valid}==`],
    ['first character changed', `${valid[0] === 'A' ? 'B' : 'A'}${valid.slice(1)}`],
    ['prefix changed', Buffer.from('V1:lead_x').toString('base64url')],
    ['not base64url', `${valid.slice(0, 4)}*${valid.slice(5)}`],
    ['standard base64', Buffer.from('v1:lead_??>>').toString('base64')],
  ])('%s -> DomainError invalid_request on starting_after', (_label, cursor) => {
    const err = rejection(() => decodeCursor(cursor));
    expect(err).toBeInstanceOf(DomainError);
    expect(err.code).toBe('invalid_request');
    expect(err.param).toBe('starting_after');
    expect(err.getError()).toEqual(expect.objectContaining({ code: 'invalid_request', param: 'starting_after' }));
  });
});

describe('toListPage', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `lead_${String(100 - i).padStart(3, '0')}`, n: i }));
  const render = (row: { id: string; n: number }) => ({ id: row.id, object: 'lead', n: row.n });

  it('with the extra row: a full page, has_more, and a cursor after its last entry', () => {
    const page = toListPage(rows(4), 3, render);
    expect(page.object).toBe('list');
    expect(page.data.map((d) => d.id)).toEqual(['lead_100', 'lead_099', 'lead_098']);
    expect(page.data[0]).toEqual({ id: 'lead_100', object: 'lead', n: 0 });
    expect(page.has_more).toBe(true);
    expect(page.next_cursor).toEqual(expect.any(String));
    expect(decodeCursor(page.next_cursor as string)).toBe('lead_098');
  });

  it.each([
    ['exactly limit rows', 3, 3],
    ['fewer rows than limit', 2, 3],
    ['one row', 1, 25],
    ['no rows', 0, 25],
  ])('last page (%s): has_more false and next_cursor null', (_label, count, limit) => {
    const page = toListPage(rows(count), limit, render);
    expect(page).toEqual({ object: 'list', data: rows(count).map(render), has_more: false, next_cursor: null });
  });
});
