import type { RequestContext } from '@app/contracts/context';
import type { ListDeliveriesRequest, WebhookEndpointRef } from '@app/contracts/dto/webhook.dto';
import { ID_PREFIX } from '@app/contracts/ids';
import type { WebhookEndpoint } from '@app/contracts/resources/webhook';
import { SUBJECTS } from '@app/contracts/subjects';
import { CURRENT_API_VERSION } from '@app/contracts/versions';
import { newId } from '@app/platform/ids';
import { nonNegativeInt, required } from '../args';
import { AdminCommand } from './command';

/** An operator's request: the endpoint id alone names what is asked about, across workspaces. */
function operatorContext(): RequestContext {
  return {
    request_id: newId(ID_PREFIX.request), workspace_id: '', key_id: 'admin-cli', member_id: '', member_role: 'owner', owner_id: '',
    mode: 'live', livemode: true, api_version: CURRENT_API_VERSION, plan: 'agency', lenses: [],
  };
}

export const webhookCommands: AdminCommand[] = [
  {
    name: 'webhook:enable',
    usage: '--endpoint <we_id>',
    summary: 'A disabled webhook endpoint back on, its failure count restarted (asks webhooks)',
    example: 'webhook:enable --endpoint we_...',
    flags: ['endpoint'],
    async run(admin, flags) {
      const body: WebhookEndpointRef = { endpoint_id: required(flags, 'endpoint') };
      return admin.ask<WebhookEndpoint>(SUBJECTS.webhooks.endpointsEnable, operatorContext(), body);
    },
  },
  {
    name: 'deliveries:list',
    usage: '--endpoint <we_id> [--limit <n, default 50>]',
    summary: "An endpoint's recent delivery attempts: status code or error, latency, next attempt (asks webhooks)",
    example: 'deliveries:list --endpoint we_... --limit 20',
    flags: ['endpoint', 'limit'],
    async run(admin, flags) {
      const body: ListDeliveriesRequest = { endpoint_id: required(flags, 'endpoint'), limit: nonNegativeInt('limit', flags.limit, 50) };
      return admin.ask(SUBJECTS.webhooks.deliveriesList, operatorContext(), body);
    },
  },
];
