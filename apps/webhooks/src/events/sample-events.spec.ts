import { EventEnvelope, PUBLIC_EVENT_TYPES } from '@app/contracts';
import { eventBody, renderEvent } from '../dispatch/render';
import { sampleData } from './sample-events';

/** spec, Events > Event types: the `data.object` of each type. */
const OBJECT_OF_TYPE: Record<string, string> = {
  'lead.created': 'lead',
  'lead.updated': 'lead',
  'lead.stage_changed': 'lead_stage_change',
  'reveal.completed': 'reveal',
  'email.sent': 'email_message',
  'email.replied': 'email_message',
  'email.bounced': 'email_message',
  'sequence.completed': 'enrollment',
  'unsubscribe.created': 'suppression',
  'credits.low': 'credit_balance',
};

describe('sample events (POST /webhook_endpoints/{id}/test)', () => {
  const at = '2026-11-27T06:00:00.000Z';

  it('covers every public event type', () => {
    expect(Object.keys(OBJECT_OF_TYPE).sort()).toEqual([...PUBLIC_EVENT_TYPES].sort());
  });

  it.each(PUBLIC_EVENT_TYPES.map((t) => [t]))('%s: data.object is the type\'s resource, its ids marked as samples', (type) => {
    const data = sampleData(type, at);
    const object = data.object as Record<string, unknown>;
    expect(object.object).toBe(OBJECT_OF_TYPE[type]);
    for (const [key, value] of Object.entries(object)) {
      if ((key === 'id' || key.endsWith('_id')) && typeof value === 'string') expect(value).toMatch(/_sample(_[a-z]+)?$/);
    }
    expect(data.previous_attributes !== undefined).toBe(type === 'lead.updated');
  });

  it('the rules of the spec\'s table: inbound reply, outbound bounce, completed enrollment without a stop reason', () => {
    expect(sampleData('email.replied', at).object).toMatchObject({ direction: 'inbound' });
    expect(sampleData('email.bounced', at).object).toMatchObject({ direction: 'outbound' });
    expect(sampleData('sequence.completed', at).object).toMatchObject({ status: 'completed', stop_reason: null });
  });
});

describe('eventBody / renderEvent', () => {
  const event: EventEnvelope = {
    id: 'evt_1', object: 'event', type: 'lead.created', api_version: '2026-09-28', created: '2026-11-27T06:00:00.000Z',
    workspace_id: 'ws_1', livemode: true, data: { object: { id: 'lead_1', object: 'lead' } },
  };

  it('the spec\'s fields in its order; no `sample` on a real event', () => {
    expect(Object.keys(eventBody(event, '2026-09-28'))).toEqual(['id', 'object', 'type', 'api_version', 'created', 'workspace_id', 'livemode', 'data']);
    expect(renderEvent(event, '2026-09-28')).toBe(JSON.stringify(eventBody(event, '2026-09-28')));
  });

  it('`sample` true right after `livemode` on a sample, and only `true` counts', () => {
    const sample = eventBody({ ...event, livemode: false, sample: true }, '2026-09-28');
    expect(Object.keys(sample)).toEqual(['id', 'object', 'type', 'api_version', 'created', 'workspace_id', 'livemode', 'sample', 'data']);
    expect(sample).toMatchObject({ livemode: false, sample: true });
    expect('sample' in eventBody({ ...event, sample: 'yes' } as unknown as EventEnvelope, '2026-09-28')).toBe(false);
  });
});
