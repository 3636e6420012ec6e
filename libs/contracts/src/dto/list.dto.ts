export const LIST_LIMITS = { name: 200, leadsPerRequest: 1000 } as const;

/** crm.lists.create: a list in the workspace of the request context; crm checks it (no gateway in front). */
export interface CreateListRequest {
  name: string;
}

/** crm.lists.addLeads and crm.lists.removeLeads: leads of the list's workspace, 1 to LIST_LIMITS.leadsPerRequest. */
export interface ListMembersRequest {
  list_id: string;
  lead_ids: string[];
}

/** crm.lists.owner (admin CLI): which workspace a list belongs to. */
export interface ListIdRequest {
  id: string;
}
