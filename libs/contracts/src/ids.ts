/** Type prefixes of every identifier (spec: Conventions). */
export const ID_PREFIX = {
  entity: 'ent_',
  reveal: 'rev_',
  lead: 'lead_',
  company: 'co_',
  pipeline: 'pl_',
  stage: 'st_',
  task: 'task_',
  sequence: 'seq_',
  mailbox: 'mbx_',
  enrollment: 'enr_',
  suppression: 'sup_',
  ledgerEntry: 'cl_',
  webhookEndpoint: 'we_',
  export: 'exp_',
  message: 'msg_',
  event: 'evt_',
  workspace: 'ws_',
  member: 'usr_',
  apiKey: 'key_',
  request: 'req_',
  tag: 'tag_',
  note: 'note_',
  list: 'list_',
} as const;

export const API_KEY_PREFIX = { live: 'svc_live_', test: 'svc_test_' } as const;
