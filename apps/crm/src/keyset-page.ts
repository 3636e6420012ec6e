import { FindManyOptions, FindOptionsWhere, LessThan } from 'typeorm';
import { decodeCursor } from '@app/platform';

/**
 * The TypeORM find of one page of a keyset list, newest first: `where` (each alternative, for an
 * OR) below the cursor's id, with one extra row that only tells whether another page exists.
 * What ListFilter.page is for hand-written lists.
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
