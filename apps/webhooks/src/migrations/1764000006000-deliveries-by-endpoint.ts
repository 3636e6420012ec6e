import { MigrationInterface, QueryRunner } from 'typeorm';

/** GET /webhook_endpoints/{id}/deliveries: an endpoint's deliveries newest first, keyset on the time-ordered id (issue 24). */
export class DeliveriesByEndpoint1764000006000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX webhook_deliveries_endpoint_id ON webhook_deliveries (endpoint_id, id DESC);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX webhook_deliveries_endpoint_id;
    `);
  }
}
