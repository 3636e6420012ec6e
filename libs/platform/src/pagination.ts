import { FindManyOptions, FindOptionsWhere, LessThan } from 'typeorm';
import { ListEnvelope } from '@app/contracts';
import { DomainError } from './domain-error';

/** Cursors are opaque to clients: the last id of a page, wrapped so its format may change. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(`v1:${lastId}`).toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!raw.startsWith('v1:') || raw.length < 5 || Buffer.from(raw).toString('base64url') !== cursor) {
    throw DomainError.invalid('starting_after', 'starting_after is not a cursor returned by this list');
  }
  return raw.slice(3);
}

/**
 * Builds the list envelope from rows fetched with `LIMIT limit + 1` in descending id order:
 * the extra row only tells whether another page exists.
 */
export function toListPage<R extends { id: string }, T>(rows: R[], limit: number, render: (row: R) => T): ListEnvelope<T> {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  return {
    object: 'list',
    data: page.map(render),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor(page[page.length - 1].id) : null,
  };
}

/**
 * The TypeORM find of one page of a keyset list, newest first: `where` (each alternative, for an
 * OR) below the cursor's id, with one extra row that only tells whether another page exists.
 * What ListFilter.page is for hand-written lists; `toListPage` makes the envelope of the rows.
 */
export function keysetPage<T extends { id: string }>(
  where: FindOptionsWhere<T> | FindOptionsWhere<T>[],
  startingAfter: string | undefined,
  limit: number,
): FindManyOptions<T> {
  const below = startingAfter ? { id: LessThan(decodeCursor(startingAfter)) } : {};
  const alternatives = Array.isArray(where) ? where : [where];
  return {
    where: alternatives.map((w) => ({ ...w, ...below }) as FindOptionsWhere<T>),
    order: { id: 'DESC' } as FindManyOptions<T>['order'],
    take: limit + 1,
  };
}
