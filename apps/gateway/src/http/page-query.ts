import { PAGE_LIMIT } from '@app/contracts';
import { PageQueryDto } from '@app/contracts/dto';

/** A validated list query with `limit` as a number (default 25); the cursor stays opaque here. */
export function pageOf<Q extends PageQueryDto>(query: Q): Omit<Q, 'limit'> & { limit: number } {
  return { ...query, limit: query.limit ? Number(query.limit) : PAGE_LIMIT.default };
}
