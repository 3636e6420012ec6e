import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A secret roll and a delivery sent again, asked again with their Idempotency-Key (a gateway that
 * took over another's claim, a retry after a time-out), answer what the first one did and change
 * nothing more (issue 34): each key records the object it changed and the answer given, 24 hours.
 * A roll's answer carries the new secret, so it is kept encrypted as the secrets are.
 */
export class ChangeKeys1764000008000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_roll_keys (
        workspace_id text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        endpoint_id text NOT NULL,
        -- AES-256-GCM under WEBHOOK_SECRET_KEY, as webhook_endpoints.secret_enc
        answer text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );

      CREATE TABLE webhook_retry_keys (
        workspace_id text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        delivery_id text NOT NULL,
        answer text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE webhook_retry_keys;
      DROP TABLE webhook_roll_keys;
    `);
  }
}
