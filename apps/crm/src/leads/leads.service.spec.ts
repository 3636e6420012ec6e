import { RequestContext } from '@app/contracts';
import { Tx, UnitOfWork } from '@app/platform';
import { CompaniesRepository } from '../companies/companies.repository';
import { OrganizationsClient } from '../companies/organizations.client';
import { PipelinesRepository } from '../pipelines/pipelines.repository';
import { LeadRow } from './lead.mapper';
import { LeadsRepository } from './leads.repository';
import { LeadsService } from './leads.service';

/**
 * LeadsService with its repositories and peer client replaced by fakes and a UnitOfWork that
 * hands over a fake Tx recording the statements run on it (recordEvent's outbox insert). No
 * database: what the service decides, not what PostgreSQL does (leads.integration-spec.ts).
 */
const ctx = { workspace_id: 'ws_1', livemode: true, api_version: '2026-09-28', member_id: 'mem_1', request_id: 'req_1' } as RequestContext;

function leadRow(overrides: Partial<LeadRow> = {}): LeadRow {
  return {
    id: 'lead_1', workspace_id: 'ws_1', lens: 'leads', first_name: 'Ada', last_name: 'Lovelace', full_name: 'Ada Lovelace',
    full_name_derived: true, title: null, email: 'ada@example.com', email_status: null, email_confidence: null, phone: null,
    website: null, company_id: null, company_name: null, country: null, revealed: false, lawful_basis: 'legitimate_interest',
    owner_id: 'mem_1', tags: [], pipeline_id: null, stage_id: null, stage_name: null, custom_fields: {}, sources: [],
    created_at: new Date('2026-11-01T00:00:00Z'), updated_at: new Date('2026-11-01T00:00:00Z'), ...overrides,
  };
}

function setup() {
  const statements: { text: string; values?: unknown[] }[] = [];
  // a statement comes as text and values, or as one config object (a named statement)
  const record = (q: string | { text: string; values?: unknown[] }, values?: unknown[]) =>
    statements.push(typeof q === 'string' ? { text: q, values } : { text: q.text, values: q.values });
  const tx = { query: jest.fn(async (q: string | { text: string; values?: unknown[] }, values?: unknown[]) => (record(q, values), { rows: [], rowCount: 1 })) } as unknown as Tx;
  const uow = { run: jest.fn((work: (tx: Tx) => Promise<unknown>) => work(tx)) } as unknown as UnitOfWork;
  const leads = { findById: jest.fn(), findIdByEmail: jest.fn(), update: jest.fn(), delete: jest.fn(), list: jest.fn() };
  const companies = { exists: jest.fn() };
  const service = new LeadsService(
    leads as unknown as LeadsRepository, companies as unknown as CompaniesRepository, {} as PipelinesRepository, {} as OrganizationsClient, uow,
  );
  const events = () => statements.filter((s) => s.text.includes('INSERT INTO outbox')).map((s) => JSON.parse(s.values?.[2] as string));
  return { service, leads, uow, tx, events };
}

describe('LeadsService (fake repositories)', () => {
  it('GET of an unknown lead is not_found naming id, read outside any transaction', async () => {
    const { service, leads, uow } = setup();
    leads.findById.mockResolvedValue(undefined);
    await expect(service.get(ctx, 'lead_x')).rejects.toMatchObject({ code: 'not_found', param: 'id' });
    expect(leads.findById).toHaveBeenCalledWith('ws_1', 'lead_x');
    expect(uow.run).not.toHaveBeenCalled();
  });

  it('an update that changes nothing writes nothing and records no event', async () => {
    const { service, leads, events } = setup();
    leads.findById.mockResolvedValue(leadRow());
    const lead = await service.update(ctx, 'lead_1', { first_name: 'Ada', last_name: 'Lovelace' });
    expect(lead).toMatchObject({ id: 'lead_1', first_name: 'Ada' });
    expect(leads.update).not.toHaveBeenCalled();
    expect(events()).toEqual([]);
  });

  it('an update writes only the changed columns (a derived full name follows) and records lead.updated with the old values, in its unit of work', async () => {
    const { service, leads, tx, events } = setup();
    leads.findById.mockResolvedValue(leadRow());
    leads.update.mockImplementation(async (_db, _ws, _id, changes) => leadRow(changes));
    await service.update(ctx, 'lead_1', { first_name: 'Augusta', last_name: 'Lovelace' });
    expect(leads.findById).toHaveBeenCalledWith('ws_1', 'lead_1', tx, true);
    expect(leads.update).toHaveBeenCalledWith(tx, 'ws_1', 'lead_1', { first_name: 'Augusta', full_name: 'Augusta Lovelace' });
    const [event] = events();
    expect(event).toMatchObject({ type: 'lead.updated', data: { object: { first_name: 'Augusta' }, previous_attributes: { first_name: 'Ada', full_name: 'Ada Lovelace' } } });
  });

  it('DELETE of an unknown lead is not_found and records no event', async () => {
    const { service, leads, events } = setup();
    leads.delete.mockResolvedValue(undefined);
    await expect(service.delete(ctx, 'lead_x')).rejects.toMatchObject({ code: 'not_found', param: 'id' });
    expect(events()).toEqual([]);
  });

  it('a create refused by the workspace-email constraint is a 409 naming the lead that has the address', async () => {
    const { service, leads, uow } = setup();
    (uow.run as jest.Mock).mockRejectedValue(Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'leads_workspace_email' }));
    leads.findIdByEmail.mockResolvedValue('lead_9');
    const refused = service.create(ctx, { full_name: 'Ada', email: 'ada@example.com' } as never);
    await expect(refused).rejects.toMatchObject({ code: 'conflict', param: 'email' });
    await expect(refused).rejects.toThrow(/lead_9/);
    expect(leads.findIdByEmail).toHaveBeenCalledWith('ws_1', 'ada@example.com');
  });
});
