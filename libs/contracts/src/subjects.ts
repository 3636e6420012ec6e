/**
 * NATS request-reply subjects, `<service>.<resource>.<verb>`. Each service subscribes in a
 * queue group named after itself (SERVICE_QUEUE).
 */
export const SUBJECTS = {
  /** Operator (admin CLI) only: workspaces, members and keys, which the public API leaves out. */
  gateway: {
    /** A workspace and its owner; answered once billing has opened its credit account (billing.accounts.open), else `pending` and billing opens it from `workspace.created`. */
    workspacesCreate: 'gateway.workspaces.create',
    membersAdd: 'gateway.members.add',
    /** The request context of a member (the owner by default), to ask another service as that member. */
    membersContext: 'gateway.members.context',
    keysCreate: 'gateway.keys.create',
    keysRevoke: 'gateway.keys.revoke',
  },
  crm: {
    leadsList: 'crm.leads.list',
    leadsCreate: 'crm.leads.create',
    leadsGet: 'crm.leads.get',
    leadsUpdate: 'crm.leads.update',
    leadsDelete: 'crm.leads.delete',
    leadsMoveStage: 'crm.leads.moveStage',
    companiesList: 'crm.companies.list',
    companiesGet: 'crm.companies.get',
    pipelinesList: 'crm.pipelines.list',
    tasksList: 'crm.tasks.list',
    tasksCreate: 'crm.tasks.create',
    tasksUpdate: 'crm.tasks.update',
    notesCreate: 'crm.notes.create',
    /** Lists of leads: written by the application side (admin CLI), read by exports' `filter.list_id`. */
    listsCreate: 'crm.lists.create',
    listsAddLeads: 'crm.lists.addLeads',
    listsRemoveLeads: 'crm.lists.removeLeads',
    /** Internal (admin CLI): the workspace a list belongs to. */
    listsOwner: 'crm.lists.owner',
    exportsCreate: 'crm.exports.create',
    exportsGet: 'crm.exports.get',
    /** Internal: the file of a completed export, asked by the gateway for a signed download link. */
    exportsFile: 'crm.exports.file',
    /** Internal (search's reveal saga): creates or updates the lead of a revealed entity. */
    leadsUpsertFromReveal: 'crm.leads.upsertFromReveal',
    /** Internal: contact fields of many leads in one request (sequences enrolling a batch). */
    leadsGetMany: 'crm.leads.getMany',
    /** Internal (the opt-out portal, sequences): the workspaces that have a lead with this address. */
    leadsWorkspacesByEmail: 'crm.leads.workspacesByEmail',
  },
  sequences: {
    list: 'sequences.sequences.list',
    get: 'sequences.sequences.get',
    create: 'sequences.sequences.create',
    launch: 'sequences.sequences.launch',
    pause: 'sequences.sequences.pause',
    resume: 'sequences.sequences.resume',
    enrollmentsCreate: 'sequences.enrollments.create',
    enrollmentsDelete: 'sequences.enrollments.delete',
    suppressionsList: 'sequences.suppressions.list',
    suppressionsCreate: 'sequences.suppressions.create',
    mailboxesCreate: 'sequences.mailboxes.create',
    countriesSet: 'sequences.countries.set',
    inboundRaw: 'sequences.inbound.raw',
    /** Internal: one-click unsubscribe by a signed token (the gateway's public endpoint). */
    unsubscribe: 'sequences.unsubscribe.token',
    /** Internal (admin CLI): the workspace a sequence belongs to. */
    owner: 'sequences.sequences.owner',
    /** Internal: the public opt-out portal (gateway): mail a confirmation link, then confirm it. */
    optoutRequest: 'sequences.optout.request',
    optoutConfirm: 'sequences.optout.confirm',
  },
  billing: {
    creditsConsume: 'billing.credits.consume',
    creditsRefund: 'billing.credits.refund',
    creditsBalance: 'billing.credits.balance',
    creditsGrant: 'billing.credits.grant',
    creditsRenew: 'billing.credits.renew',
    /** Internal (search): reserves a block of a workspace's credits for its pages (a credit lease). */
    creditsLease: 'billing.credits.lease',
    /** Internal (search): settles a lease with the pages search charged against it; the rest goes back. */
    creditsSettleLease: 'billing.credits.settleLease',
    /**
     * Internal (the gateway creating a workspace): opens the workspace's credit account now, as the
     * `workspace.created` event would a moment later (the same opening; opened once, whichever comes
     * first), so that the workspace can spend its credits as soon as its creation is answered.
     */
    accountsOpen: 'billing.accounts.open',
  },
  search: {
    query: 'search.entities.search',
    revealsCreate: 'search.reveals.create',
    profileSet: 'search.profile.set',
    seed: 'search.entities.seed',
    ingest: 'search.entities.ingest',
    /** Internal (crm creating a company): the facts of the organisation record matching a domain or name. */
    organizationsMatch: 'search.organizations.match',
    /** Internal (the gateway's GET /credits): settles the workspace's open credit leases with billing now. */
    leasesSettle: 'search.leases.settle',
  },
  webhooks: {
    endpointsList: 'webhooks.endpoints.list',
    endpointsCreate: 'webhooks.endpoints.create',
    endpointsDelete: 'webhooks.endpoints.delete',
    endpointsGet: 'webhooks.endpoints.get',
    endpointsUpdate: 'webhooks.endpoints.update',
    endpointsRollSecret: 'webhooks.endpoints.rollSecret',
    /** An endpoint's deliveries with their attempts (GET /webhook_endpoints/{id}/deliveries). */
    endpointDeliveries: 'webhooks.endpoints.deliveries',
    deliveriesRetry: 'webhooks.deliveries.retry',
    /** A sample event of a type sent to one endpoint at once (POST /webhook_endpoints/{id}/test). */
    endpointsTest: 'webhooks.endpoints.test',
    /** The workspace's events as stored at consumption (GET /events, GET /events/{id}). */
    eventsList: 'webhooks.events.list',
    eventsGet: 'webhooks.events.get',
    /** The workspace's events after a position, in the order they became final (GET /events/stream polls it). */
    eventsStream: 'webhooks.events.stream',
    /** Operator (admin CLI): switch a disabled endpoint back on; the failure count restarts. */
    endpointsEnable: 'webhooks.endpoints.enable',
    /** Operator (admin CLI): recent attempts of an endpoint with status and latency. */
    deliveriesList: 'webhooks.deliveries.list',
    /** Tests only: moves the dispatcher's retry clock; answered only with WEBHOOK_TEST_CLOCK=1. */
    testClockAdvance: 'webhooks.test.clockAdvance',
  },
} as const;

/**
 * Which requests the RPC client (ServiceClient) may ask again of another replica when an attempt
 * has no answer by its own deadline (docs/decisions.md, "Retrying a request on another replica"):
 * - `read`: changes nothing;
 * - `ref`: what it changes is named by the request, so a second attempt changes nothing more and
 *   answers the same (a credit consume or refund by `ref`; the lead of a revealed entity by its
 *   email; a search page, whose credit is consumed by the request id);
 * - `keyed`: a create, or a change of one object (a secret roll, a delivery sent again), that
 *   records the request's Idempotency-Key (RequestContext.idempotency) with what it made or
 *   changed, so an attempt after the first answers the first one's result; retried only when the
 *   request carries a key.
 * Any other subject is never retried: its attempt's outcome is unknown to the client.
 */
export type RetryPolicy = 'read' | 'ref' | 'keyed';

const S = SUBJECTS;
const RETRY_POLICIES: ReadonlyMap<string, RetryPolicy> = new Map<string, RetryPolicy>([
  ...[
    S.gateway.membersContext,
    S.crm.leadsList, S.crm.leadsGet, S.crm.companiesList, S.crm.companiesGet, S.crm.pipelinesList, S.crm.tasksList,
    S.crm.listsOwner, S.crm.exportsGet, S.crm.exportsFile, S.crm.leadsGetMany, S.crm.leadsWorkspacesByEmail,
    S.sequences.list, S.sequences.get, S.sequences.suppressionsList, S.sequences.owner,
    S.billing.creditsBalance,
    S.search.organizationsMatch,
    S.webhooks.endpointsList, S.webhooks.endpointsGet, S.webhooks.endpointDeliveries, S.webhooks.deliveriesList,
    S.webhooks.eventsStream,
  ].map((subject): [string, RetryPolicy] => [subject, 'read']),
  ...[S.billing.creditsConsume, S.billing.creditsRefund, S.billing.creditsLease, S.billing.creditsSettleLease, S.search.leasesSettle, S.crm.leadsUpsertFromReveal, S.search.query].map((subject): [string, RetryPolicy] => [subject, 'ref']),
  ...[
    S.crm.leadsCreate, S.crm.tasksCreate, S.crm.exportsCreate, S.webhooks.endpointsCreate,
    S.search.revealsCreate, S.sequences.enrollmentsCreate, S.sequences.suppressionsCreate,
    S.webhooks.endpointsRollSecret, S.webhooks.deliveriesRetry, S.webhooks.endpointsTest,
  ].map((subject): [string, RetryPolicy] => [subject, 'keyed']),
]);

/** How a request to `subject` may be retried (RetryPolicy), or undefined: never. */
export const retryPolicyOf = (subject: string): RetryPolicy | undefined => RETRY_POLICIES.get(subject);

/** Broadcast (no queue group) to every gateway replica when keys or workspaces change. */
export const KEYS_CHANGED_SUBJECT = 'gateway.keys.changed';

/**
 * Operator (admin CLI): the events a service's durable consumers gave up on (its dead-letter
 * store), and replaying them through the consumer's handler. No service asks these of another
 * (nats-flows.ts lists no such call), so the operator is the only identity allowed to publish them.
 */
export const deadEventsSubject = (service: string): string => `${service}.events.dead`;
export const replayEventsSubject = (service: string): string => `${service}.events.replay`;

/**
 * A workspace's events, published by the webhooks service (core NATS, no queue group, nothing
 * kept) once each is stored, as GET /events/{id} renders it; the operator's `listen` reads them.
 */
export const WORKSPACE_EVENTS_PREFIX = 'webhooks.listen.';
export const workspaceEventsSubject = (workspaceId: string): string => `${WORKSPACE_EVENTS_PREFIX}${workspaceId}`;

/** Liveness over the bus: answered when a service's queue group has a responder. */
export const pingSubject = (service: string): string => `${service}.ping`;

export const SERVICE_NAMES = ['gateway', 'search', 'crm', 'sequences', 'billing', 'webhooks'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** JetStream stream that carries every domain event, subjects `events.<type>`. */
export const EVENTS_STREAM = 'EVENTS';
export const EVENTS_SUBJECT_PREFIX = 'events.';
export const eventSubject = (type: string): string => `${EVENTS_SUBJECT_PREFIX}${type}`;
