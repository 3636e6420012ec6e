import { WebhookEndpoint } from '@app/contracts';
import { EndpointRow } from './endpoints.repository';

export function renderEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    description: row.description,
    events: row.events as WebhookEndpoint['events'],
    status: row.status,
    created_at: row.created_at.toISOString(),
  };
}
