import { LeadList } from '@app/contracts';
import { ListEntity } from './list.entity';

export function renderList(row: ListEntity, memberCount: number): LeadList {
  return { id: row.id, object: 'list', name: row.name, member_count: memberCount, created_at: row.created_at.toISOString() };
}
