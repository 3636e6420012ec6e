import { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkspacesKeys1764000001000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0001_workspaces_keys';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE workspaces (
        id text COLLATE "C" PRIMARY KEY,
        name text NOT NULL,
        plan text NOT NULL,
        lenses text[] NOT NULL,
        owner_id text COLLATE "C" NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE members (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
        role text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX members_workspace ON members (workspace_id);
      CREATE TABLE api_keys (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
        member_id text COLLATE "C" NOT NULL REFERENCES members (id),
        name text,
        mode text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        last4 text NOT NULL,
        api_version text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
      CREATE TABLE idempotency_keys (
        workspace_id text COLLATE "C" NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        status text NOT NULL,
        response_status int,
        response_body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
      CREATE UNLOGGED TABLE rate_limit_counters (
        bucket text NOT NULL,
        window_start bigint NOT NULL,
        count int NOT NULL,
        PRIMARY KEY (bucket, window_start)
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE rate_limit_counters;
      DROP TABLE idempotency_keys;
      DROP TABLE api_keys;
      DROP TABLE members;
      DROP TABLE workspaces;
    `);
  }
}
