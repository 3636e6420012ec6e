import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { OpportunityProfile } from '@app/contracts';
import { PG_POOL } from '@app/platform';

/** Workspaces' opportunity profiles (read with each page by EntitiesRepository.search). */
@Injectable()
export class ProfilesRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async save(workspaceId: string, profile: OpportunityProfile): Promise<void> {
    // hand-written: one upsert statement, as the page read beside it is
    await this.pool.query(
      `INSERT INTO opportunity_profiles (workspace_id, profile) VALUES ($1, $2)
       ON CONFLICT (workspace_id) DO UPDATE SET profile = EXCLUDED.profile, updated_at = now()`,
      [workspaceId, JSON.stringify(profile)],
    );
  }
}
