import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { EntityManager, Repository } from 'typeorm';
import { MIGRATIONS_TABLE, PG_POOL } from '@app/platform';
import { ApiKeyEntity } from '../auth/api-key.entity';
import { MemberEntity } from './member.entity';
import { WorkspaceEntity } from './workspace.entity';

/** Workspaces, their members and their API keys in the gateway's database. */
@Injectable()
export class WorkspacesRepository {
  constructor(
    @InjectRepository(WorkspaceEntity) private readonly workspaces: Repository<WorkspaceEntity>,
    @InjectRepository(MemberEntity) private readonly members: Repository<MemberEntity>,
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  findWorkspace(id: string): Promise<WorkspaceEntity | null> {
    return this.workspaces.findOneBy({ id });
  }

  findMember(workspaceId: string, id: string): Promise<MemberEntity | null> {
    return this.members.findOneBy({ id, workspaceId });
  }

  /** A workspace and its owner, inside the caller's transaction (`manager`). */
  async insertWorkspace(manager: EntityManager, workspace: Omit<WorkspaceEntity, 'createdAt'>, owner: Omit<MemberEntity, 'createdAt'>): Promise<void> {
    await manager.insert(WorkspaceEntity, workspace);
    await manager.insert(MemberEntity, owner);
  }

  async insertMember(member: Omit<MemberEntity, 'createdAt'>): Promise<void> {
    await this.members.insert(member);
  }

  async insertKey(key: Omit<ApiKeyEntity, 'createdAt' | 'revokedAt'>): Promise<void> {
    await this.keys.insert(key);
  }

  /** Revokes a key, keeping the first revocation's time; false when there is no such key. */
  async revokeKey(id: string): Promise<boolean> {
    const { affected } = await this.keys
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'coalesce(revoked_at, now())' })
      .where('id = :id', { id })
      .execute();
    return affected === 1;
  }

  /**
   * The migrations recorded as applied. Hand-written: TypeORM's own bookkeeping table has no
   * entity, and this reads it without a query runner.
   */
  async appliedMigrations(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ name: string }>({ name: 'gateway-applied-migrations', text: `SELECT name FROM ${MIGRATIONS_TABLE}` });
    return new Set(rows.map((r) => r.name));
  }
}
