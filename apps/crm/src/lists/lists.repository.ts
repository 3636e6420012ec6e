import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { ListMemberEntity } from './list-member.entity';
import { ListEntity } from './list.entity';

/**
 * Lists and their members. Every query is scoped by workspace; a member is always a lead of
 * its list's workspace (the service checks it while holding the leads), and leaves with its
 * lead (ON DELETE CASCADE).
 */
@Injectable()
export class ListsRepository {
  constructor(
    @InjectRepository(ListEntity) private readonly lists: Repository<ListEntity>,
  ) {}

  /** A new list; the database stamps `created_at`. */
  async insert(list: Pick<ListEntity, 'id' | 'workspace_id' | 'name'>): Promise<ListEntity> {
    const entity = this.lists.create(list);
    await this.lists.insert(entity);
    return entity;
  }

  /**
   * The list; `lockForChange` (inside a transaction) makes other membership changes of the list
   * wait, so the member count a change answers is the count that change left.
   */
  async findById(manager: EntityManager, workspaceId: string, id: string, lockForChange = false): Promise<ListEntity | undefined> {
    const list = await manager.findOne(ListEntity, {
      where: { workspace_id: workspaceId, id },
      ...(lockForChange ? { lock: { mode: 'for_no_key_update' as const } } : {}),
    });
    return list ?? undefined;
  }

  countMembers(manager: EntityManager, listId: string): Promise<number> {
    return manager.countBy(ListMemberEntity, { list_id: listId });
  }

  /** The workspace of a list, whatever it is (the admin CLI names only the list). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const list = await this.lists.findOne({ select: { workspace_id: true }, where: { id } });
    return list?.workspace_id;
  }

  /** Adds the leads that are not members yet; how many were added. */
  async addMembers(manager: EntityManager, listId: string, leadIds: string[]): Promise<number> {
    const { raw } = await manager
      .createQueryBuilder()
      .insert()
      .into(ListMemberEntity)
      .values(leadIds.map((leadId) => ({ list_id: listId, lead_id: leadId })))
      .orIgnore()
      .returning('lead_id')
      .updateEntity(false)
      .execute();
    return (raw as unknown[]).length;
  }

  /** Removes the leads that are members; how many were removed. */
  async removeMembers(manager: EntityManager, listId: string, leadIds: string[]): Promise<number> {
    const { affected } = await manager.delete(ListMemberEntity, { list_id: listId, lead_id: In(leadIds) });
    return affected ?? 0;
  }
}
