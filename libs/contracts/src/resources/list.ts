/**
 * A list of leads of one workspace. The public API shows no list endpoints ("not shown"); the
 * application side (the admin CLI) writes lists over NATS, and exports select by `filter.list_id`.
 */
export interface LeadList {
  id: string;
  object: 'list';
  name: string;
  /** Leads in the list now (a deleted lead leaves its lists). */
  member_count: number;
  created_at: string;
}

/** Reply of crm.lists.addLeads: the list after the change and how many leads were not members before. */
export interface LeadListAdded extends LeadList {
  added: number;
}

/** Reply of crm.lists.removeLeads: the list after the change and how many leads were members before. */
export interface LeadListRemoved extends LeadList {
  removed: number;
}
