import { MigrationInterface, QueryRunner } from 'typeorm';

export class TasksNotes1764000005000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0005_tasks_notes';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE tasks (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        title text NOT NULL,
        lead_id text COLLATE "C" REFERENCES leads (id) ON DELETE CASCADE,
        assignee_id text COLLATE "C",
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
        due_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        CHECK ((status = 'done') = (completed_at IS NOT NULL))
      );
      CREATE INDEX tasks_workspace_id ON tasks (workspace_id, id DESC);
      CREATE INDEX tasks_lead ON tasks (lead_id, id DESC) WHERE lead_id IS NOT NULL;
      CREATE INDEX tasks_workspace_assignee ON tasks (workspace_id, assignee_id, id DESC);
      CREATE INDEX tasks_workspace_status ON tasks (workspace_id, status, id DESC);
      CREATE INDEX tasks_workspace_due ON tasks (workspace_id, due_at) WHERE due_at IS NOT NULL;

      CREATE TABLE task_create_keys (
        workspace_id text COLLATE "C" NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        task_id text COLLATE "C" NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );
      CREATE INDEX task_create_keys_created ON task_create_keys (created_at);

      CREATE TABLE notes (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        lead_id text COLLATE "C" NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
        body text NOT NULL,
        author_id text COLLATE "C",
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE INDEX notes_lead ON notes (lead_id, id DESC);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE notes;
      DROP TABLE task_create_keys;
      DROP TABLE tasks;
    `);
  }
}
