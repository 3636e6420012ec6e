import { MigrationInterface, QueryRunner } from 'typeorm';

export class LeadsCompanyCountWhen1764000011000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // leads_company_count (migration 0004) ran its PL/pgSQL function after every insert, delete and
    // update of company_id, and the function then found most had nothing to count (a lead without
    // a company): on a create the trigger queue and the function's own conditions were about a
    // tenth of PostgreSQL's CPU. The same function now runs only when a count changes, each
    // trigger's WHEN deciding as the row is written (no queued event otherwise).
    await queryRunner.query(`
      DROP TRIGGER leads_company_count ON leads;
      CREATE TRIGGER leads_company_count_insert AFTER INSERT ON leads
        FOR EACH ROW WHEN (NEW.company_id IS NOT NULL) EXECUTE FUNCTION leads_company_count();
      CREATE TRIGGER leads_company_count_delete AFTER DELETE ON leads
        FOR EACH ROW WHEN (OLD.company_id IS NOT NULL) EXECUTE FUNCTION leads_company_count();
      CREATE TRIGGER leads_company_count_update AFTER UPDATE OF company_id ON leads
        FOR EACH ROW WHEN (NEW.company_id IS DISTINCT FROM OLD.company_id) EXECUTE FUNCTION leads_company_count();
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER leads_company_count_insert ON leads;
      DROP TRIGGER leads_company_count_delete ON leads;
      DROP TRIGGER leads_company_count_update ON leads;
      CREATE TRIGGER leads_company_count AFTER INSERT OR DELETE OR UPDATE OF company_id ON leads
        FOR EACH ROW EXECUTE FUNCTION leads_company_count();
    `);
  }
}
