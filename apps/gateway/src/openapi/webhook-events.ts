import { CURRENT_API_VERSION, PUBLIC_EVENT_TYPES, PublicEventType } from '@app/contracts';
import { JsonSchema } from './dto-schema';
import { RECORDED_EXAMPLES, RecordedExamples } from './examples';
import { componentRef } from './resource-schema';

/**
 * The `webhooks` section of the OpenAPI document: one entry per event type of the spec (Events >
 * Event types), each with its own schema (the envelope with `type` fixed and `data.object` the
 * resource the spec names) and one example. The examples' resources are the ones recorded from a
 * run of the mesh (examples.json) where an operation answers that resource, so they have the
 * shapes the API really renders; the envelope around them is the spec's.
 */

interface EventTypeDoc {
  /** Component name of the type's schema. */
  schema: string;
  /** The spec's "Sent when". */
  sentWhen: string;
  /** Component name of `data.object`. */
  object: string;
  /** `data.previous_attributes` is present. */
  previousAttributes?: boolean;
}

export const EVENT_TYPE_DOCS: Record<PublicEventType, EventTypeDoc> = {
  'lead.created': { schema: 'LeadCreatedEvent', object: 'Lead', sentWhen: 'A lead is added by a reveal, an import, the application or the API.' },
  'lead.updated': {
    schema: 'LeadUpdatedEvent', object: 'Lead', previousAttributes: true,
    sentWhen: 'Lead fields change; `data.previous_attributes` holds the old values of the fields that changed.',
  },
  'lead.stage_changed': { schema: 'LeadStageChangedEvent', object: 'LeadStageChange', sentWhen: 'A lead moves to another pipeline stage.' },
  'reveal.completed': { schema: 'RevealCompletedEvent', object: 'Reveal', sentWhen: 'A reveal finishes, including refunded ones with status `no_contact_found`.' },
  'email.sent': { schema: 'EmailSentEvent', object: 'EmailMessage', sentWhen: 'A sequence step or an inbox reply leaves a mailbox.' },
  'email.replied': {
    schema: 'EmailRepliedEvent', object: 'EmailMessage',
    sentWhen: 'A reply is detected (direction `inbound`); the sequence stops for that lead; out-of-office replies do not count.',
  },
  'email.bounced': {
    schema: 'EmailBouncedEvent', object: 'EmailMessage',
    sentWhen: 'A hard bounce (direction `outbound`, `snippet` carries the bounce text); the address is marked invalid and suppressed; five percent bounces pause the sequence.',
  },
  'sequence.completed': {
    schema: 'SequenceCompletedEvent', object: 'Enrollment',
    sentWhen: 'A lead reaches the end of a sequence without replying (enrollment status `completed`, `stop_reason` null).',
  },
  'unsubscribe.created': {
    schema: 'UnsubscribeCreatedEvent', object: 'Suppression',
    sentWhen: 'A recipient unsubscribes (one-click header, footer link or reply), opts out through the public portal, or a suppression with reason `unsubscribe` is created through the API.',
  },
  'credits.low': {
    schema: 'CreditsLowEvent', object: 'CreditBalance',
    sentWhen: "The total balance drops below 10% of the plan's monthly credits; once per period.",
  },
};

/** `data.object` of `lead.stage_changed` (libs/contracts LeadStageChange). */
const LEAD_STAGE_CHANGE: JsonSchema = {
  type: 'object',
  description: '`data.object` of `lead.stage_changed`: the move of one lead between stages.',
  properties: {
    object: { type: 'string', const: 'lead_stage_change' },
    lead_id: { type: 'string', description: 'Prefix `lead_`.' },
    pipeline_id: { type: 'string', description: 'The pipeline of the new stage; prefix `pl_`.' },
    from_stage: { oneOf: [{ $ref: '#/components/schemas/StageRef' }, { type: 'null' }], description: 'Where the lead was; null when it had no stage.' },
    to_stage: { oneOf: [{ $ref: '#/components/schemas/StageRef' }, { type: 'null' }], description: 'Where the lead is now.' },
    changed_at: { type: 'string', format: 'date-time' },
  },
  required: ['object', 'lead_id', 'pipeline_id', 'from_stage', 'to_stage', 'changed_at'],
};

/** The schema of one event type: the envelope (`Event`) with `type` and `data.object` narrowed. */
function eventSchema(type: PublicEventType): JsonSchema {
  const doc = EVENT_TYPE_DOCS[type];
  const data: JsonSchema = {
    type: 'object',
    properties: {
      object: componentRef(doc.object),
      ...(doc.previousAttributes
        ? { previous_attributes: { type: 'object', description: 'The old values of the fields that changed, by field name.', additionalProperties: true } }
        : {}),
    },
    required: doc.previousAttributes ? ['object', 'previous_attributes'] : ['object'],
  };
  return {
    description: `The \`${type}\` event: ${doc.sentWhen}`,
    allOf: [componentRef('Event')],
    type: 'object',
    properties: { type: { type: 'string', const: type }, data },
  };
}

/** What the examples' resources are taken from: the body a recorded operation answered. */
function recorded(examples: RecordedExamples, key: string): Record<string, any> {
  const body = examples[key]?.response.body;
  if (!body || typeof body !== 'object') throw new Error(`examples.json has no recorded answer for ${key}`);
  return structuredClone(body) as Record<string, any>;
}

/** One example resource per event type, from the recorded answers where an operation returns it. */
function exampleObjects(examples: RecordedExamples): Record<PublicEventType, { object: unknown; previous_attributes?: Record<string, unknown>; created: string; livemode: boolean }> {
  const created = recorded(examples, 'POST /leads');
  const updated = recorded(examples, 'PATCH /leads/{id}');
  const moved = recorded(examples, 'PUT /leads/{id}/stage');
  const patch = (examples['PATCH /leads/{id}']?.request.body ?? {}) as Record<string, unknown>;
  const previous = Object.fromEntries(Object.keys(patch).map((field) => [field, created[field] ?? null]));
  const reveal = recorded(examples, 'POST /reveals');
  const enrollment = recorded(examples, 'POST /sequences/{id}/enrollments').enrolled[0];
  const sequence = recorded(examples, 'GET /sequences/{id}');
  const suppression = recorded(examples, 'POST /suppressions');
  const credits = recorded(examples, 'GET /credits');
  const sentAt = moved.updated_at as string;
  const message = (over: Record<string, unknown>) => ({
    id: 'msg_01m8dk3hq2Ue1JtKYqzVbN7s', object: 'email_message', lead_id: created.id, sequence_id: sequence.id, mailbox_id: sequence.mailbox_ids[0],
    direction: 'outbound', from: 'grace@outreach.example', to: created.email, subject: 'A pilot for Analytical Engines',
    snippet: 'Hi Ada, would a two-week pilot help your team?', sent_at: sentAt, ...over,
  });
  return {
    'lead.created': { object: created, created: created.created_at, livemode: true },
    'lead.updated': { object: updated, previous_attributes: previous, created: updated.updated_at, livemode: true },
    'lead.stage_changed': {
      object: { object: 'lead_stage_change', lead_id: moved.id, pipeline_id: moved.stage.pipeline_id, from_stage: updated.stage, to_stage: moved.stage, changed_at: moved.updated_at },
      created: moved.updated_at, livemode: true,
    },
    // the recorded reveal is a test key's dry run; a live reveal that found a contact
    'reveal.completed': {
      object: {
        ...reveal, lead_id: created.id, status: 'revealed', email: 'olivia.lopez@redwoodnorth1096.example', email_status: 'valid', email_confidence: 95,
        phone: '+14155552096', credits_charged: 1, livemode: true,
      },
      created: reveal.created_at, livemode: true,
    },
    'email.sent': { object: message({}), created: sentAt, livemode: true },
    'email.replied': {
      object: message({ id: 'msg_01m8dk4a8pXw3Lr0bqkE2nHd', direction: 'inbound', from: created.email, to: 'grace@outreach.example', subject: 'Re: A pilot for Analytical Engines', snippet: 'Sounds good, could we talk on Thursday?' }),
      created: sentAt, livemode: true,
    },
    'email.bounced': {
      object: message({ snippet: '550 5.1.1 <ada@analytical.test>: Recipient address rejected: User unknown' }),
      created: sentAt, livemode: true,
    },
    'sequence.completed': {
      object: { ...enrollment, status: 'completed', current_step: sequence.steps.length, next_send_at: null, stopped_at: null, stop_reason: null },
      created: enrollment.enrolled_at, livemode: true,
    },
    'unsubscribe.created': { object: suppression, created: suppression.created_at, livemode: true },
    'credits.low': {
      object: { ...credits, balance: { plan: 9, pack: 0, total: 9 } },
      created: credits.ledger[0].created_at, livemode: true,
    },
  };
}

/** Event ids of the examples: fixed, so the document does not change between runs. */
const EXAMPLE_EVENT_IDS: Record<PublicEventType, string> = Object.fromEntries(
  PUBLIC_EVENT_TYPES.map((type, i) => [type, `evt_01m8dk3${String(i).padStart(2, '0')}${type.replace(/[^a-z]/g, '').slice(0, 12)}`]),
) as Record<PublicEventType, string>;

/** One example envelope per event type, as a delivery's body carries it. */
export function eventExamples(examples: RecordedExamples = RECORDED_EXAMPLES): Record<PublicEventType, Record<string, unknown>> {
  const objects = exampleObjects(examples);
  const workspace = 'ws_01m8dk353bHq8k1nVw6pTx2Z';
  return Object.fromEntries(PUBLIC_EVENT_TYPES.map((type) => {
    const { object, previous_attributes, created, livemode } = objects[type];
    return [type, {
      id: EXAMPLE_EVENT_IDS[type], object: 'event', type, api_version: CURRENT_API_VERSION, created, workspace_id: workspace, livemode,
      data: { object, ...(previous_attributes ? { previous_attributes } : {}) },
    }];
  })) as unknown as Record<PublicEventType, Record<string, unknown>>;
}

/** The component schemas the event types add: one per type, and `LeadStageChange`. */
export function eventSchemas(): Record<string, JsonSchema> {
  return {
    LeadStageChange: LEAD_STAGE_CHANGE,
    ...Object.fromEntries(PUBLIC_EVENT_TYPES.map((type) => [EVENT_TYPE_DOCS[type].schema, eventSchema(type)])),
  };
}

const SIGNATURE_HEADER = {
  name: 'Service-Signature', in: 'header', required: true,
  description: '`t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present.',
  schema: { type: 'string', examples: ['t=1790000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd'] },
};

/** The `webhooks` entries of the event types, keyed by the type (`lead.created`, …). */
export function eventWebhooks(examples: RecordedExamples = RECORDED_EXAMPLES): Record<string, unknown> {
  const samples = eventExamples(examples);
  return Object.fromEntries(PUBLIC_EVENT_TYPES.map((type) => {
    const doc = EVENT_TYPE_DOCS[type];
    return [type, {
      post: {
        operationId: `webhook_${type.replace(/\./g, '_')}`,
        summary: `Event ${type}`,
        description: `${doc.sentWhen} \`data.object\` is a ${doc.object}${doc.previousAttributes ? '; `data.previous_attributes` holds the old values' : ''}. ` +
          'Delivered, signed and retried as the `event` webhook describes.',
        tags: ['webhook_endpoints'],
        security: [],
        parameters: [SIGNATURE_HEADER],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: componentRef(doc.schema), examples: { [type.replace(/\./g, '_')]: { summary: `A ${type} event`, value: samples[type] } } } },
        },
        responses: { '200': { description: 'Any 2xx status acknowledges the delivery.' } },
      },
    }];
  }));
}

export { SIGNATURE_HEADER };
