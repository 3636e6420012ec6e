import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { NatsConnection, Subscription } from '@nats-io/transport-node';
import { Pool } from 'pg';
import { Repository } from 'typeorm';
import { ApiVersion, KEYS_CHANGED_SUBJECT, KeyMode, Lens, MemberRole, Plan } from '@app/contracts';
import { NATS_CONNECTION, onFreshConnection, PG_POOL, SERVICE_CONFIG } from '@app/platform';
import { GatewayConfig } from '../config';
import { MemberEntity } from '../workspaces/member.entity';

export interface KeyRecord {
  key_id: string;
  workspace_id: string;
  member_id: string;
  member_role: MemberRole;
  owner_id: string;
  mode: KeyMode;
  api_version: ApiVersion;
  plan: Plan;
  lenses: Lens[];
  revoked: boolean;
}

/**
 * Looks keys up by hash. Answers are cached briefly per replica; the replica that revokes a key
 * announces it on NATS so every replica drops its cache at once, and the TTL bounds staleness
 * should an announcement be missed.
 */
@Injectable()
export class ApiKeysRepository implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly cache = new Map<string, { record: KeyRecord | null; expires: number }>();
  private subscription?: Subscription;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @InjectRepository(MemberEntity) private readonly members: Repository<MemberEntity>,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = this.nc.subscribe(KEYS_CHANGED_SUBJECT, { callback: () => this.cache.clear() });
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  async findByHash(hash: string): Promise<KeyRecord | null> {
    const cached = this.cache.get(hash);
    if (cached && cached.expires > Date.now()) return cached.record;
    // Hand-written: the key look-up of every request the cache misses, one join returned as the record, without entity hydration.
    // A read: tried again on a fresh connection when its connection broke.
    const { rows } = await onFreshConnection(() => this.pool.query<KeyRecord>(
      `SELECT k.id AS key_id, k.workspace_id, k.member_id, m.role AS member_role, w.owner_id, k.mode, k.api_version,
              w.plan, w.lenses, k.revoked_at IS NOT NULL AS revoked
         FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id JOIN members m ON m.id = k.member_id
        WHERE k.key_hash = $1`,
      [hash],
    ), { idempotent: true });
    const record = rows[0] ?? null;
    if (this.config.keyCacheTtlMs > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, { record, expires: Date.now() + this.config.keyCacheTtlMs });
    }
    return record;
  }

  memberExists(workspaceId: string, memberId: string): Promise<boolean> {
    return this.members.existsBy({ workspaceId, id: memberId });
  }
}
