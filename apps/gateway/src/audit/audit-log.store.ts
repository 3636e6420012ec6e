import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { onFreshConnection, PG_POOL } from '@app/platform';

export interface AuditEntry {
  workspace_id: string;
  /** The API key that acted; null for a signed link (the link is the credential). */
  key_id: string | null;
  member_id: string | null;
  action: 'export.created' | 'export.downloaded';
  object_id: string;
  details: Record<string, unknown>;
  request_id: string;
  client_ip: string | null;
}

/**
 * The gateway's audit log (architecture: the gateway owns it). An `export.created` entry is
 * written once per export: a retry of the same request (same Idempotency-Key) finds it there.
 */
@Injectable()
export class AuditLogStore {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async record(entry: AuditEntry): Promise<void> {
    // Hand-written: ON CONFLICT against a partial unique index (one export.created per export), which the entity API cannot express.
    // Tried again on a broken connection: an export.created entry is written once whatever runs twice; any
    // other entry only when the first run surely wrote nothing.
    await onFreshConnection(() => this.pool.query(
      `INSERT INTO audit_log (workspace_id, key_id, member_id, action, object_id, details, request_id, client_ip)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (action, object_id) WHERE action = 'export.created' DO NOTHING`,
      [entry.workspace_id, entry.key_id, entry.member_id, entry.action, entry.object_id, JSON.stringify(entry.details),
        entry.request_id, entry.client_ip],
    ), { idempotent: entry.action === 'export.created' });
  }
}
