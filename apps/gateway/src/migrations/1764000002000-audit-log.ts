import { MigrationInterface, QueryRunner } from 'typeorm';

export class AuditLog1764000002000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0002_audit_log';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        key_id text COLLATE "C",
        member_id text COLLATE "C",
        action text NOT NULL,
        object_id text COLLATE "C" NOT NULL,
        details jsonb NOT NULL DEFAULT '{}',
        request_id text NOT NULL,
        client_ip text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE INDEX audit_log_workspace ON audit_log (workspace_id, created_at DESC);
      CREATE UNIQUE INDEX audit_log_export_created ON audit_log (action, object_id) WHERE action = 'export.created';
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE audit_log;
    `);
  }
}
