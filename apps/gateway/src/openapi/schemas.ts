import {
  COMPANY_SIZES, CREDIT_POOLS, EMAIL_STATUSES, ENROLLMENT_STATUSES, ERROR_CODES, EXPORT_FORMATS,
  EXPORT_STATUSES, LAWFUL_BASES, LEDGER_TYPES, LENSES, PLANS, REVEAL_STATUSES, SEQUENCE_STATUSES, SKIP_REASONS,
  SOURCE_PROVIDERS, STAGE_KINDS, STOP_REASONS, SUPPRESSION_REASONS, SUPPRESSION_TYPES, TASK_STATUSES,
} from '@app/contracts';

/**
 * Response schemas of the spec's resources, written once as JSON Schema (draft 2020-12, as
 * OpenAPI 3.1 uses): libs/contracts has them only as TypeScript interfaces. Enumerations come
 * from the contracts so that a value added there shows here. A route whose resource is not
 * here is documented with `GenericObject`.
 */
export type JsonSchema = Record<string, unknown>;

const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...(description ? { description } : {}), ...extra });
const nullable = (schema: JsonSchema): JsonSchema => {
  if (schema.$ref) return { oneOf: [schema, { type: 'null' }] };
  const type = schema.type;
  return { ...schema, type: Array.isArray(type) ? [...type, 'null'] : [type, 'null'], ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
};
const id = (prefix: string): JsonSchema => str(`Identifier, prefix \`${prefix}\`; opaque, up to 255 characters.`, { maxLength: 255, examples: [`${prefix}2x8Kq3vNw9`] });
const constant = (value: string): JsonSchema => ({ type: 'string', const: value });
const enumOf = (values: readonly (string | null)[], description?: string): JsonSchema => ({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const dateTime = (description?: string): JsonSchema => str(description, { format: 'date-time' });
const int = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
const arrayOf = (items: JsonSchema, description?: string): JsonSchema => ({ type: 'array', items, ...(description ? { description } : {}) });

function object(properties: Record<string, JsonSchema>, required: string[] | 'all', description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    required: required === 'all' ? Object.keys(properties) : required,
  };
}

const livemode = bool('False when produced by a test key.');

export const RESOURCE_SCHEMAS: Record<string, JsonSchema> = {
  Error: object(
    {
      error: object(
        {
          type: str('Broad class, such as `invalid_request_error` or `rate_limit_error`.'),
          code: enumOf(Object.values(ERROR_CODES), 'Stable code; clients branch on it. New codes may be added (handle them by HTTP status).'),
          message: str('Human-readable; wording can change and must not be parsed.'),
          param: str('The offending request field, when there is one.'),
          doc_url: str('Link to the explanation of the code, anchored by code.', { format: 'uri' }),
        },
        ['type', 'code', 'message', 'doc_url'],
      ),
    },
    'all',
    'The one error object every failure returns.',
  ),
  DeletedObject: object(
    { id: str('ID of the deleted object.'), object: str('Type of the deleted object.'), deleted: { type: 'boolean', const: true } },
    'all',
    'Deletion envelope.',
  ),
  GenericObject: {
    type: 'object',
    description: 'A resource whose schema is not documented yet; it carries `object` naming its type.',
    properties: { object: str('A constant naming the type.') },
    additionalProperties: true,
  },
  Source: object(
    {
      field: str('The field this record backs (for example email, title, organization).'),
      value: str('Value as found at the source.'),
      source_url: str('Public URL where found.', { format: 'uri' }),
      provider: enumOf(SOURCE_PROVIDERS),
      fetched_at: dateTime('When fetched.'),
    },
    'all',
    'Provenance record of a contact field.',
  ),
  SearchHit: object(
    {
      entity_id: id('ent_'),
      lens: enumOf(LENSES),
      name: str('Organization, grant program or person name.'),
      person_name: nullable(str('Contact person when the hit is an organization with a known contact.')),
      title: nullable(str("Contact's role.")),
      organization: nullable(str('Organization, fund, institution or agency.')),
      location: nullable(str('City, region and country.')),
      email_masked: nullable(str('Masked email; null if no email is known yet.')),
      email_status: nullable(enumOf(EMAIL_STATUSES, 'Null until the email is revealed and checked.')),
      phone_masked: nullable(str()),
      revealed: bool('Whether this workspace already revealed the entity. Revealing again is free.'),
      match_score: nullable(int('0 to 100. Investors lens: fit against the opportunity profile; null in other lenses.', { minimum: 0, maximum: 100 })),
      details: { type: 'object', description: 'Lens-specific fields.', additionalProperties: true },
      sources: arrayOf(ref('Source')),
    },
    ['entity_id', 'lens', 'name', 'email_masked', 'revealed', 'details', 'sources'],
  ),
  SearchResults: object(
    {
      object: constant('search_results'),
      lens: enumOf(LENSES),
      query: str('The query sent.'),
      page: int(undefined, { minimum: 1 }),
      per_page: int('Always 25.', { const: 25 }),
      has_more: bool('Another page exists.'),
      credits_charged: int('1 on a live key, 0 on a test key.', { minimum: 0 }),
      livemode,
      data: arrayOf(ref('SearchHit'), 'Contact details masked.'),
    },
    'all',
  ),
  Reveal: object(
    {
      id: id('rev_'),
      object: constant('reveal'),
      entity_id: str('The revealed entity.'),
      lead_id: nullable(str('Lead created or updated; null for test-key dry runs.')),
      status: enumOf(REVEAL_STATUSES, '`revealed` (details returned), `no_contact_found` (credit refunded), `dry_run` (test key).'),
      email: nullable(str()),
      email_status: nullable(enumOf(EMAIL_STATUSES)),
      email_confidence: nullable(int('0 to 100.', { minimum: 0, maximum: 100 })),
      phone: nullable(str('E.164.')),
      credits_charged: int('Net credits charged, 0 to 1.', { minimum: 0, maximum: 1 }),
      already_revealed: bool('True when the workspace had already revealed the entity.'),
      livemode,
      sources: arrayOf(ref('Source')),
      created_at: dateTime('When the reveal happened.'),
    },
    ['id', 'object', 'entity_id', 'lead_id', 'status', 'email', 'credits_charged', 'already_revealed', 'livemode', 'sources', 'created_at'],
  ),
  StageRef: object({ pipeline_id: str(), stage_id: str(), name: str() }, 'all'),
  Lead: object(
    {
      id: id('lead_'),
      object: constant('lead'),
      lens: enumOf(LENSES),
      first_name: nullable(str()),
      last_name: nullable(str()),
      full_name: str('Display name; for organizations the organization name.'),
      title: nullable(str('Job title or role.')),
      email: nullable(str('Null until revealed.', { format: 'email' })),
      email_status: nullable(enumOf(EMAIL_STATUSES, 'Null until revealed and checked.')),
      email_confidence: nullable(int('0 to 100.', { minimum: 0, maximum: 100 })),
      phone: nullable(str('E.164.')),
      website: nullable(str(undefined, { format: 'uri' })),
      company_id: nullable(str('Prefix `co_`.')),
      company_name: nullable(str()),
      country: nullable(str('ISO 3166-1 alpha-2; drives per-country sending rules.')),
      revealed: bool('Whether contact details were revealed in this workspace.'),
      lawful_basis: enumOf(LAWFUL_BASES, 'GDPR basis.'),
      owner_id: nullable(str('Owning workspace member.')),
      tags: arrayOf(str(), 'Tag names.'),
      stage: nullable(ref('StageRef')),
      custom_fields: { type: 'object', description: 'Values keyed by custom field key.', additionalProperties: { type: ['string', 'number', 'boolean'] } },
      created_at: dateTime(),
      updated_at: dateTime(),
      sources: arrayOf(ref('Source'), 'Provenance for every stored field. Present on a single lead; absent from list entries.'),
    },
    ['id', 'object', 'lens', 'full_name', 'email', 'email_status', 'revealed', 'lawful_basis', 'tags', 'stage', 'created_at', 'updated_at'],
  ),
  Company: object(
    {
      id: id('co_'),
      object: constant('company'),
      name: str(),
      domain: nullable(str('Primary domain.')),
      industry: nullable(str('Industry key.')),
      size: nullable(enumOf(COMPANY_SIZES, 'Employee range.')),
      country: nullable(str('ISO country code.')),
      city: nullable(str()),
      description: nullable(str("Short description from the company's own site.")),
      lead_count: int('Leads linked to it in the workspace.', { minimum: 0 }),
      sources: arrayOf(ref('Source')),
      created_at: dateTime(),
      updated_at: dateTime(),
    },
    ['id', 'object', 'name', 'domain', 'lead_count', 'sources', 'created_at', 'updated_at'],
  ),
  Stage: object(
    { id: id('st_'), name: str(), position: int('Zero-based.', { minimum: 0 }), kind: enumOf(STAGE_KINDS, '`won` and `lost` close the deal.') },
    'all',
  ),
  Pipeline: object(
    {
      id: id('pl_'),
      object: constant('pipeline'),
      name: str(),
      lens: nullable(enumOf(LENSES, 'Lens the template was made for.')),
      is_default: bool('Whether new leads land here.'),
      stages: arrayOf(ref('Stage'), 'In order.'),
      created_at: dateTime(),
    },
    ['id', 'object', 'name', 'is_default', 'stages', 'created_at'],
  ),
  Task: object(
    {
      id: id('task_'),
      object: constant('task'),
      title: str(undefined, { maxLength: 300 }),
      lead_id: nullable(str()),
      assignee_id: nullable(str()),
      status: enumOf(TASK_STATUSES),
      due_at: nullable(dateTime()),
      completed_at: nullable(dateTime('When marked done.')),
      created_at: dateTime(),
    },
    'all',
  ),
  SequenceStep: object(
    {
      position: int('1-based.', { minimum: 1 }),
      type: enumOf(['email', 'wait']),
      subject: nullable(str('Subject line with merge tags, for email steps; a merge tag may carry a fallback after a pipe.')),
      wait_days: nullable(int('For wait steps.', { minimum: 0 })),
    },
    'all',
  ),
  Sequence: object(
    {
      id: id('seq_'),
      object: constant('sequence'),
      name: str(),
      lens: nullable(enumOf(LENSES, 'Template lens.')),
      status: enumOf(SEQUENCE_STATUSES, 'Only `active` sequences send.'),
      mailbox_ids: arrayOf(str(), 'Mailboxes it rotates through.'),
      business_days_only: bool('Whether waits count business days only.'),
      steps: arrayOf(ref('SequenceStep'), 'In order.'),
      stats: object(
        { enrolled: int(), active: int(), sent: int(), replied: int(), bounced: int(), unsubscribed: int() },
        'all',
      ),
      created_at: dateTime(),
      launched_at: nullable(dateTime('When first launched.')),
    },
    ['id', 'object', 'name', 'status', 'mailbox_ids', 'business_days_only', 'steps', 'stats', 'created_at', 'launched_at'],
  ),
  Enrollment: object(
    {
      id: id('enr_'),
      object: constant('enrollment'),
      sequence_id: str(),
      lead_id: str(),
      status: enumOf(ENROLLMENT_STATUSES),
      current_step: int('Position of the next step to run.'),
      next_send_at: nullable(dateTime('When the next email is scheduled.')),
      enrolled_at: dateTime(),
      stopped_at: nullable(dateTime()),
      stop_reason: nullable(enumOf(STOP_REASONS)),
    },
    'all',
  ),
  EnrollmentResult: object(
    {
      object: constant('enrollment_result'),
      livemode,
      enrolled: arrayOf(ref('Enrollment')),
      skipped: arrayOf(object({ lead_id: str(), reason: enumOf(SKIP_REASONS, 'New values may be added.') }, 'all')),
    },
    'all',
  ),
  Suppression: object(
    {
      id: id('sup_'),
      object: constant('suppression'),
      type: enumOf(SUPPRESSION_TYPES),
      value: str('The address or domain.'),
      reason: enumOf(SUPPRESSION_REASONS),
      scope: enumOf(['workspace', 'global'], '`global` entries come from the public opt-out portal and apply to every workspace.'),
      created_at: dateTime(),
    },
    'all',
  ),
  LedgerEntry: object(
    {
      id: id('cl_'),
      type: enumOf(LEDGER_TYPES),
      amount: int('Signed; negative for consumption and expiry.'),
      reason: str('Cause, for example search_page, reveal, reveal_failed, plan_renewal, pack_2000.'),
      ref: nullable(str('Related object ID such as a reveal or a payment invoice.')),
      pool: enumOf(CREDIT_POOLS),
      created_at: dateTime(),
    },
    'all',
  ),
  CreditBalance: object(
    {
      object: constant('credit_balance'),
      plan: enumOf(PLANS),
      balance: object(
        {
          plan: int('Plan credits left this period; used first, reset at renewal.'),
          pack: int('Pack credits; never expire, used after plan credits.'),
          total: int('plan + pack.'),
        },
        'all',
      ),
      period_ends_at: nullable(dateTime('When plan credits renew.')),
      ledger: arrayOf(ref('LedgerEntry'), 'The 20 most recent entries, newest first.'),
    },
    'all',
  ),
  WebhookEndpoint: object(
    {
      id: id('we_'),
      object: constant('webhook_endpoint'),
      url: str('HTTPS URL receiving events.', { format: 'uri' }),
      description: nullable(str(undefined, { maxLength: 200 })),
      events: arrayOf(str(), 'Subscribed event types; `*` means all.'),
      status: enumOf(WEBHOOK_ENDPOINT_STATUSES, 'Disabled endpoints receive nothing.'),
      created_at: dateTime(),
    },
    'all',
  ),
  WebhookEndpointWithSecret: {
    allOf: [
      ref('WebhookEndpoint'),
      object({ secret: str('Signing secret, prefix `whsec_`; returned only at creation.', { pattern: '^whsec_' }) }, 'all'),
    ],
  },
  ExportFilter: object(
    {
      lens: enumOf(LENSES),
      tag: str(),
      pipeline_id: str(),
      stage_id: str(),
      list_id: str('Members of a list of the workspace (lists are made in the application); an unknown list or another workspace\'s matches no lead.'),
      updated_since: dateTime(),
    },
    [],
    'Every field optional; an empty filter exports every lead.',
  ),
  Export: object(
    {
      id: id('exp_'),
      object: constant('export'),
      status: enumOf(EXPORT_STATUSES),
      format: enumOf(EXPORT_FORMATS),
      filter: ref('ExportFilter'),
      row_count: nullable(int('Rows once completed.')),
      download_url: nullable(str('Signed, set once completed, valid 24 hours.', { format: 'uri' })),
      expires_at: nullable(dateTime('When download_url stops working.')),
      livemode,
      created_at: dateTime(),
      completed_at: nullable(dateTime()),
    },
    'all',
  ),
  EmailMessage: object(
    {
      id: id('msg_'),
      object: constant('email_message'),
      lead_id: str(),
      sequence_id: nullable(str('Sequence that sent it.')),
      mailbox_id: str(),
      direction: enumOf(['outbound', 'inbound']),
      from: str(),
      to: str(),
      subject: str(),
      snippet: str('First 200 characters of the plain-text body.', { maxLength: 200 }),
      sent_at: dateTime('When sent or received.'),
    },
    ['id', 'lead_id', 'sequence_id', 'mailbox_id', 'direction', 'from', 'to', 'subject', 'snippet', 'sent_at'],
  ),
  Event: object(
    {
      id: id('evt_'),
      object: constant('event'),
      type: str('One of the event types; new types may be added.', {
        examples: ['lead.created', 'lead.updated', 'lead.stage_changed', 'reveal.completed', 'email.sent', 'email.replied', 'email.bounced', 'sequence.completed', 'unsubscribe.created', 'credits.low'],
      }),
      api_version: str('The version pinned on the endpoint at creation.', { format: 'date' }),
      created: dateTime(),
      workspace_id: str('Prefix `ws_`.'),
      livemode,
      data: {
        type: 'object',
        properties: {
          object: {
            description: 'The resource, rendered with `api_version`: Lead (lead.*), Reveal, EmailMessage (email.*), Enrollment (sequence.completed), Suppression (unsubscribe.created) or CreditBalance (credits.low).',
            anyOf: [ref('Lead'), ref('Reveal'), ref('EmailMessage'), ref('Enrollment'), ref('Suppression'), ref('CreditBalance'), { type: 'object', additionalProperties: true }],
          },
          previous_attributes: { type: 'object', description: 'Old values, for `lead.updated`.', additionalProperties: true },
        },
        required: ['object'],
      },
    },
    'all',
    'Envelope of a webhook event delivery.',
  ),
};

/** A list envelope of `item` (a component name). */
export function listOf(item: string): JsonSchema {
  return object(
    {
      object: constant('list'),
      data: arrayOf(ref(item)),
      has_more: bool('Another page exists.'),
      next_cursor: nullable(str('Pass as `starting_after` for the next page; null on the last page.')),
    },
    'all',
  );
}

export { ref as schemaRef };
