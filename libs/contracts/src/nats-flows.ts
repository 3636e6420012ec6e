import { EVENT, type EventType } from './event-types';
import { eventSubject, KEYS_CHANGED_SUBJECT, SERVICE_NAMES, ServiceName, SUBJECTS } from './subjects';

/**
 * Who may say what on the bus. Every NATS connection has an identity of its own (a service, or
 * the operator: the admin CLI and the bus's provisioning step), and nats-server's permissions,
 * generated from this file (libs/platform/src/nats-auth.ts), allow exactly these flows: a service
 * subscribes to its own request subjects only and answers through `allow_responses`; it asks
 * only the peers listed here; it publishes only the events it owns; it reads the event stream
 * through its own durable consumers only, each filtered to the subject listed here. The tenant
 * context a request carries can therefore only come from the gateway or the operator, and only the
 * operator creates or changes a stream. A unit test keeps these lists equal to what the code of
 * each app uses.
 */
export const NATS_IDENTITIES = [...SERVICE_NAMES, 'operator'] as const;
export type NatsIdentity = (typeof NATS_IDENTITIES)[number];

const { crm, sequences, billing, search, webhooks } = SUBJECTS;

/**
 * The request subjects each identity may publish (ask). The operator may ask every service; the
 * gateway's own subjects (SUBJECTS.gateway: workspaces, members, keys) only the operator asks.
 */
export const NATS_CALLS: Record<ServiceName, readonly string[]> = {
  gateway: [
    crm.leadsList, crm.leadsCreate, crm.leadsGet, crm.leadsUpdate, crm.leadsDelete, crm.leadsMoveStage,
    crm.companiesList, crm.companiesGet, crm.pipelinesList, crm.tasksList, crm.tasksCreate, crm.tasksUpdate,
    crm.exportsCreate, crm.exportsGet, crm.exportsFile,
    sequences.list, sequences.get, sequences.enrollmentsCreate, sequences.enrollmentsDelete,
    sequences.suppressionsList, sequences.suppressionsCreate, sequences.unsubscribe, sequences.optoutRequest,
    sequences.optoutConfirm,
    billing.creditsBalance, billing.accountsOpen,
    search.query, search.revealsCreate, search.leasesSettle,
    webhooks.endpointsList, webhooks.endpointsCreate, webhooks.endpointsDelete, webhooks.endpointsGet, webhooks.endpointsUpdate,
    webhooks.endpointsRollSecret, webhooks.endpointDeliveries, webhooks.deliveriesRetry, webhooks.endpointsTest,
    webhooks.eventsList, webhooks.eventsGet, webhooks.eventsStream,
  ],
  search: [billing.creditsConsume, billing.creditsRefund, billing.creditsLease, billing.creditsSettleLease, crm.leadsUpsertFromReveal],
  sequences: [crm.leadsGetMany, crm.leadsWorkspacesByEmail],
  crm: [search.organizationsMatch],
  billing: [],
  webhooks: [],
};

/** The domain events each service owns and publishes (through its outbox relay). */
export const NATS_EVENT_OWNERS: Record<ServiceName, readonly EventType[]> = {
  gateway: [EVENT.workspaceCreated],
  search: [EVENT.revealCompleted],
  crm: [EVENT.leadCreated, EVENT.leadUpdated, EVENT.leadStageChanged, EVENT.leadDeleted],
  sequences: [EVENT.emailSent, EVENT.emailReplied, EVENT.emailBounced, EVENT.sequenceCompleted, EVENT.unsubscribeCreated],
  billing: [EVENT.creditsLow],
  webhooks: [],
};

/**
 * The durable consumers of the EVENTS stream each service reads through, each with the one
 * subject it is filtered to: a service may create and read these consumers, with these filters,
 * and no other (the server binds the filter to the create request's subject). A consumer of one
 * event type reads that type's subject; the webhooks fan-out reads every event (`events.>`), as
 * every public event may go to an endpoint.
 */
export const NATS_DURABLES: Record<ServiceName, Readonly<Record<string, string>>> = {
  gateway: {},
  search: {},
  crm: { crm: eventSubject(EVENT.workspaceCreated), 'crm-email-bounced': eventSubject(EVENT.emailBounced) },
  sequences: { 'sequences-lead-updated': eventSubject(EVENT.leadUpdated), 'sequences-lead-deleted': eventSubject(EVENT.leadDeleted) },
  billing: { billing: eventSubject(EVENT.workspaceCreated) },
  webhooks: { 'webhooks-dispatcher': eventSubject('>') },
};

/** The names of a service's durable consumers. */
export const natsDurablesOf = (service: ServiceName): string[] => Object.keys(NATS_DURABLES[service]);

/**
 * Broadcasts (no queue group): the gateway replica that revoked a key (for the operator) tells
 * every gateway replica to drop its cached keys; a webhooks replica tells the others an endpoint
 * was deleted.
 */
export const NATS_BROADCASTS = { keysChanged: KEYS_CHANGED_SUBJECT, webhookEndpointDeleted: 'webhooks.endpoint.deleted' } as const;

/** The inbox prefix of an identity: its replies can be read by it alone. */
export const natsInboxPrefix = (identity: NatsIdentity): string => `_INBOX_${identity}`;
