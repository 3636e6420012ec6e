import { flag, intFlag, onlyFlags, ParsedArgs, requiredFlag, UsageError } from './args';
import { dataOf, Lim } from './context';

/** `lim events list|get`: the workspace's events in the key's mode, as JSON. */
export async function events(lim: Lim, args: ParsedArgs, globals: readonly string[]): Promise<number> {
  const [action, id, extra] = args.positionals;
  const api = lim.client.api;
  if (action === 'list' && id === undefined) {
    onlyFlags(args, [...globals, 'type', 'limit', 'starting-after']);
    const query = { type: flag(args, 'type') as never, limit: intFlag(args, 'limit', 1, 100), starting_after: flag(args, 'starting-after') };
    lim.json(dataOf(await api.GET('/events', { params: { query } })));
    return 0;
  }
  if (action === 'get' && id !== undefined && extra === undefined) {
    onlyFlags(args, globals);
    lim.json(dataOf(await api.GET('/events/{id}', { params: { path: { id } } })));
    return 0;
  }
  throw new UsageError('events list [--type <type>] [--limit <n>] [--starting-after <cursor>], or events get <evt_id>');
}

/** `lim deliveries list|retry`: an endpoint's deliveries with their attempts, and sending one again, as JSON. */
export async function deliveries(lim: Lim, args: ParsedArgs, globals: readonly string[]): Promise<number> {
  const [action, id, extra] = args.positionals;
  const api = lim.client.api;
  if (action === 'list' && id === undefined) {
    onlyFlags(args, [...globals, 'endpoint', 'limit', 'starting-after']);
    const endpoint = requiredFlag(args, 'endpoint');
    const query = { limit: intFlag(args, 'limit', 1, 100), starting_after: flag(args, 'starting-after') };
    lim.json(dataOf(await api.GET('/webhook_endpoints/{id}/deliveries', { params: { path: { id: endpoint }, query } })));
    return 0;
  }
  if (action === 'retry' && id !== undefined && extra === undefined) {
    onlyFlags(args, [...globals, 'endpoint']);
    const endpoint = flag(args, 'endpoint') ?? (await endpointOf(lim, id));
    if (!endpoint) {
      lim.note(`no delivery ${id} to any webhook endpoint of this workspace`);
      return 1;
    }
    lim.json(dataOf(await api.POST('/webhook_endpoints/{id}/deliveries/{delivery_id}/retry', { params: { path: { id: endpoint, delivery_id: id } } })));
    return 0;
  }
  throw new UsageError('deliveries list --endpoint <we_id> [--limit <n>] [--starting-after <cursor>], or deliveries retry <whd_id> [--endpoint <we_id>]');
}

/** The endpoint a delivery belongs to, looked for among the workspace's endpoints (the API names deliveries under their endpoint). */
async function endpointOf(lim: Lim, deliveryId: string): Promise<string | undefined> {
  for await (const endpoint of lim.client.paginate('/webhook_endpoints', { query: { limit: 100 } })) {
    for await (const delivery of lim.client.paginate('/webhook_endpoints/{id}/deliveries', { path: { id: endpoint.id }, query: { limit: 100 } })) {
      if (delivery.id === deliveryId) return endpoint.id;
    }
  }
  return undefined;
}
