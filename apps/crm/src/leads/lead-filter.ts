import { ExportFilter, ListLeadsRequest } from '@app/contracts';
import { ListFilter } from '@app/platform';

/** What selects leads: the lead list's query parameters and an export's filter name the same fields. */
export type LeadCriteria = Partial<Pick<ListLeadsRequest, 'lens' | 'tag' | 'stage_id' | 'updated_since' | 'q'> & Pick<ExportFilter, 'pipeline_id' | 'list_id'>>;

/**
 * The WHERE clause and parameters selecting a workspace's leads, for the lead list (with its
 * cursor) and for exports alike. A `list_id` matches the members of that list only when the list
 * is the workspace's own: an unknown list or another workspace's matches no lead
 * (docs/decisions.md). `updated_since` is taken as given: the list reads it first (a malformed
 * one is a 400 there).
 */
export class LeadFilter extends ListFilter {
  constructor(workspaceId: string, criteria: LeadCriteria, startingAfter?: string) {
    super(workspaceId, startingAfter);
    // a stored export filter may hold null for a field it does not set
    const given = (value: string | null | undefined) => value ?? undefined;
    this.add((p) => `lens = ${p}`, given(criteria.lens))
      .add((p) => `tags @> ARRAY[${p}]::text[]`, given(criteria.tag))
      .add((p) => `pipeline_id = ${p}`, given(criteria.pipeline_id))
      .add((p) => `stage_id = ${p}`, given(criteria.stage_id))
      .add((p) => `updated_at > ${p}::timestamptz`, given(criteria.updated_since))
      // the workspace is always $1 (ListFilter's first clause)
      .add((p) => `id IN (SELECT m.lead_id FROM list_members m JOIN lists l ON l.id = m.list_id WHERE l.workspace_id = $1 AND m.list_id = ${p})`, given(criteria.list_id))
      .contains(['full_name', 'email', 'company_name'], given(criteria.q));
  }
}
