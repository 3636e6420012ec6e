import { RequestContext } from '@app/contracts';
import { IdempotentCreate, Tx, UnitOfWork } from '@app/platform';
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

/** create with every collaborator it writes through: the inserted row is what the repository answers. */
function createSetup() {
  const statements: { text: string; values?: unknown[] }[] = [];
  // a statement comes as text and values, or as one config object (a named statement)
  const tx = {
    query: jest.fn(async (q: string | { text: string; values?: unknown[] }, values?: unknown[]) => (
      statements.push(typeof q === 'string' ? { text: q, values } : { text: q.text, values: q.values }), { rows: [], rowCount: 1 })),
  } as unknown as Tx;
  const uow = { run: jest.fn((work: (tx: Tx) => Promise<unknown>) => work(tx)) } as unknown as UnitOfWork;
  const leads = {
    createKeys: new IdempotentCreate({ table: 'lead_create_keys', column: 'lead_id', noun: 'lead' }),
    // the insert reads the workspace's entry stage itself: here, the stage 'New' of pipe_1
    insertAtEntryStage: jest.fn(async (_db: unknown, row: Omit<LeadRow, 'pipeline_id' | 'stage_id' | 'stage_name' | 'created_at' | 'updated_at'>) => ({
      ...row, pipeline_id: 'pipe_1', stage_id: 'stg_new', stage_name: 'New', created_at: new Date('2026-11-27T06:00:00Z'), updated_at: new Date('2026-11-27T06:00:00Z'),
    })),
    ensureTags: jest.fn(async () => undefined),
    findIdByEmail: jest.fn(),
  };
  const companies = {
    exists: jest.fn(async () => false),
    findOrCreate: jest.fn(async (_db: unknown, _ws: string, name: string | null, domain: string | null) => ({ id: 'comp_1', name: name ?? domain })),
    applyFacts: jest.fn(async () => undefined),
  };
  const pipelines = {
    provision: jest.fn(async () => undefined),
  };
  const organizations = { factsOf: jest.fn(async () => []) };
  const service = new LeadsService(
    leads as unknown as LeadsRepository, companies as unknown as CompaniesRepository, pipelines as unknown as PipelinesRepository,
    organizations as unknown as OrganizationsClient, uow,
  );
  const events = () => statements.filter((s) => s.text.includes('INSERT INTO outbox')).map((s) => JSON.parse(s.values?.[2] as string));
  return { service, leads, companies, uow, tx, events };
}

describe('LeadsService.create (fake repositories)', () => {
  it('POST /leads: the name is derived, the phone normalized to E.164, every given field sourced to source_url with provider api, defaults applied', async () => {
    const { service, events } = createSetup();
    const lead = await service.create(ctx, {
      first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '020 7946 0018', country: 'gb',
      source_url: 'https://example.com/team', tags: ['vip', 'vip', 'london'],
    } as never);
    expect(lead).toMatchObject({
      object: 'lead', lens: 'leads', full_name: 'Ada Lovelace', phone: '+442079460018', country: 'GB', lawful_basis: 'legitimate_interest',
      owner_id: 'mem_1', tags: ['vip', 'london'], stage: { pipeline_id: 'pipe_1', stage_id: 'stg_new', name: 'New' }, revealed: false,
    });
    expect(lead.id).toMatch(/^lead_/);
    expect(lead.sources!.map((s) => [s.field, s.value, s.provider, s.source_url])).toEqual(expect.arrayContaining([
      ['full_name', 'Ada Lovelace', 'api', 'https://example.com/team'],
      ['email', 'ada@example.com', 'api', 'https://example.com/team'],
      ['phone', '+442079460018', 'api', 'https://example.com/team'],
    ]));
    expect(events()).toEqual([expect.objectContaining({ type: 'lead.created', data: { object: lead } })]);
  });

  it('a company given by domain is matched or created in the same unit of work, and the lead carries it', async () => {
    const { service, companies, tx } = createSetup();
    const lead = await service.create(ctx, { full_name: 'Acme buyer', company_domain: 'https://www.Acme.com/about' } as never);
    expect(companies.findOrCreate).toHaveBeenCalledWith(tx, 'ws_1', null, 'acme.com', []);
    expect(lead).toMatchObject({ company_id: 'comp_1', company_name: 'acme.com' });
  });

  it('a company_domain that is no domain name is invalid_request naming company_domain, before anything is written', async () => {
    const { service, uow, leads } = createSetup();
    await expect(service.create(ctx, { full_name: 'Acme', company_domain: 'not a domain' } as never)).rejects.toMatchObject({ code: 'invalid_request', param: 'company_domain' });
    expect(uow.run).not.toHaveBeenCalled();
    expect(leads.insertAtEntryStage).not.toHaveBeenCalled();
  });
});
