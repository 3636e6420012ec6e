import { LeadFilter } from './lead-filter';

/** One filter for the lead list and exports (moved from export-format.spec.ts with exportWhere). */
describe('lead filter', () => {
  it('scopes to the workspace and adds each filter field as a parameter (an export filter)', () => {
    const filter = new LeadFilter('ws_1', { lens: 'investors', tag: 'vip', pipeline_id: 'pl_1', stage_id: 'st_1', updated_since: '2026-01-01T00:00:00Z' });
    expect(filter.where()).toBe('WHERE workspace_id = $1 AND lens = $2 AND tags @> ARRAY[$3]::text[] AND pipeline_id = $4 AND stage_id = $5 AND updated_at > $6::timestamptz');
    expect(filter.params).toEqual(['ws_1', 'investors', 'vip', 'pl_1', 'st_1', '2026-01-01T00:00:00Z']);
  });

  it('a list_id matches the members of that list of the same workspace', () => {
    const filter = new LeadFilter('ws_1', { tag: 'vip', list_id: 'list_1' });
    expect(filter.where()).toBe(
      'WHERE workspace_id = $1 AND tags @> ARRAY[$2]::text[] AND id IN (SELECT m.lead_id FROM list_members m JOIN lists l ON l.id = m.list_id WHERE l.workspace_id = $1 AND m.list_id = $3)',
    );
    expect(filter.params).toEqual(['ws_1', 'vip', 'list_1']);
  });

  it('a stored export filter\'s null fields select nothing', () => {
    const filter = new LeadFilter('ws_1', { lens: null, tag: 'vip' } as never);
    expect(filter.where()).toBe('WHERE workspace_id = $1 AND tags @> ARRAY[$2]::text[]');
    expect(filter.params).toEqual(['ws_1', 'vip']);
  });

  it('a lead list page: the cursor after the workspace, the text search last, newest first with one extra row', () => {
    const filter = new LeadFilter('ws_1', { lens: 'leads', q: '50%_off' });
    expect(filter.page(10)).toBe('WHERE workspace_id = $1 AND lens = $2 AND (full_name ILIKE $3 OR email ILIKE $3 OR company_name ILIKE $3) ORDER BY id DESC LIMIT $4');
    expect(filter.params).toEqual(['ws_1', 'leads', '%50\\%\\_off%', 11]);
  });
});
