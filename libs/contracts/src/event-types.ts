/** Event types delivered to webhook endpoints (spec: Events). */
export const PUBLIC_EVENT_TYPES = [
  'lead.created',
  'lead.updated',
  'lead.stage_changed',
  'reveal.completed',
  'email.sent',
  'email.replied',
  'email.bounced',
  'sequence.completed',
  'unsubscribe.created',
  'credits.low',
] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];

/** Events between services only; never delivered to webhook endpoints. */
export const INTERNAL_EVENT_TYPES = ['lead.deleted', 'workspace.created'] as const;
export type InternalEventType = (typeof INTERNAL_EVENT_TYPES)[number];

export type EventType = PublicEventType | InternalEventType;

export const EVENT = {
  leadCreated: 'lead.created',
  leadUpdated: 'lead.updated',
  leadStageChanged: 'lead.stage_changed',
  leadDeleted: 'lead.deleted',
  workspaceCreated: 'workspace.created',
  emailSent: 'email.sent',
  emailReplied: 'email.replied',
  emailBounced: 'email.bounced',
  sequenceCompleted: 'sequence.completed',
  unsubscribeCreated: 'unsubscribe.created',
  revealCompleted: 'reveal.completed',
  creditsLow: 'credits.low',
} as const satisfies Record<string, EventType>;
