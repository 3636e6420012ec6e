import { randomBytes } from 'node:crypto';
import { newSigningSecret, Schemas } from '@lead-intelligence/client';
import { flag, onlyFlags, ParsedArgs, receiverUrl, UsageError } from './args';
import { dataOf, Lim, sleep } from './context';
import { describeEvent, forward } from './forward';

/** How long `trigger` waits for an endpoint's first attempt (the receiver has 10 s to answer). */
const ATTEMPT_WAIT_MS = 20_000;

/**
 * `lim trigger <type>`: a sample event of that type sent now to each enabled webhook endpoint of
 * the key's workspace that receives the type (`--endpoint` picks one), through
 * `POST /webhook_endpoints/{id}/test`, with one line per endpoint once its first attempt is made:
 * the receiver's status. With `--forward-to <url>` the sample goes straight to a local receiver
 * instead, signed with `--secret` (or LIM_WEBHOOK_SECRET, or a fresh secret printed first): the
 * type's example of the API's OpenAPI document, as a sample (`livemode` false, `sample` true).
 * Exits 0 when every receiver answered 2xx, 1 otherwise.
 */
export async function trigger(lim: Lim, args: ParsedArgs, globals: readonly string[]): Promise<number> {
  onlyFlags(args, [...globals, 'endpoint', 'forward-to', 'secret']);
  const [type, extra] = args.positionals;
  if (!type || extra !== undefined) throw new UsageError('trigger takes one event type, e.g. lim trigger lead.created');
  const to = flag(args, 'forward-to');
  if (to !== undefined) {
    if (args.flags.has('endpoint')) throw new UsageError('--endpoint and --forward-to exclude each other');
    return triggerLocally(lim, type, receiverUrl(to), flag(args, 'secret') ?? process.env.LIM_WEBHOOK_SECRET);
  }
  if (args.flags.has('secret')) throw new UsageError('--secret goes with --forward-to (an endpoint signs with its own secret)');
  return triggerEndpoints(lim, type, flag(args, 'endpoint'));
}

type Endpoint = Schemas['WebhookEndpoint'];
type Delivery = Schemas['WebhookDelivery'];

async function triggerEndpoints(lim: Lim, type: string, endpointId: string | undefined): Promise<number> {
  const api = lim.client.api;
  let endpoints: Endpoint[];
  if (endpointId) {
    endpoints = [dataOf(await api.GET('/webhook_endpoints/{id}', { params: { path: { id: endpointId } } }))];
  } else {
    endpoints = [];
    for await (const endpoint of lim.client.paginate('/webhook_endpoints', { query: { limit: 100 } })) {
      if (endpoint.status === 'enabled' && (endpoint.events.includes('*') || endpoint.events.includes(type))) endpoints.push(endpoint);
    }
    if (endpoints.length === 0) {
      lim.note(`no enabled webhook endpoint of this workspace receives ${type}: create one (POST /webhook_endpoints), or send the sample to a local receiver with --forward-to <url>`);
      return 1;
    }
  }
  const sent = await Promise.all(endpoints.map(async (endpoint) => {
    const delivery = dataOf(await api.POST('/webhook_endpoints/{id}/test', { params: { path: { id: endpoint.id } }, body: { type: type as never } }));
    return { endpoint, delivery: await firstAttempt(lim, endpoint.id, delivery) };
  }));
  for (const { endpoint, delivery } of sent) {
    const attempt = delivery.attempts[0];
    lim.line({
      endpoint_id: endpoint.id, url: endpoint.url, delivery_id: delivery.id, event_id: delivery.event_id, type: delivery.event_type,
      status: attempt?.status_code ?? null, delivery_status: delivery.status,
      ...(attempt ? { latency_ms: attempt.latency_ms } : {}), ...(attempt?.error ? { error: attempt.error } : {}),
      ...(attempt ? {} : { error: `no attempt within ${ATTEMPT_WAIT_MS / 1000} s` }),
    });
  }
  return sent.every(({ delivery }) => isSuccess(delivery.attempts[0]?.status_code ?? null)) ? 0 : 1;
}

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

/** The delivery once its first attempt is recorded (or as it stands after the wait). */
async function firstAttempt(lim: Lim, endpointId: string, delivery: Delivery): Promise<Delivery> {
  const until = Date.now() + ATTEMPT_WAIT_MS;
  let current = delivery;
  while (current.attempts.length === 0 && Date.now() < until) {
    await sleep(250);
    for await (const d of lim.client.paginate('/webhook_endpoints/{id}/deliveries', { path: { id: endpointId }, query: { limit: 100 } })) {
      if (d.id === delivery.id) {
        current = d;
        break;
      }
      if (d.created_at < delivery.created_at) break;
    }
  }
  return current;
}

async function triggerLocally(lim: Lim, type: string, url: URL, given: string | undefined): Promise<number> {
  if (given !== undefined && !given.startsWith('whsec_')) throw new UsageError('--secret must be a signing secret (whsec_...)');
  const doc = dataOf(await lim.client.api.GET('/openapi.json')) as { webhooks?: Record<string, { post?: { requestBody?: { content?: Record<string, { examples?: Record<string, { value?: unknown }> }> } } }> };
  const types = Object.keys(doc.webhooks ?? {}).filter((name) => name !== 'event');
  const examples = doc.webhooks?.[type]?.post?.requestBody?.content?.['application/json']?.examples;
  const example = examples && (Object.values(examples)[0]?.value as Record<string, unknown> | undefined);
  if (!types.includes(type) || !example) throw new UsageError(`unknown event type ${type}; one of: ${types.join(', ')}`);
  const secret = given ?? newSigningSecret();
  if (given === undefined) lim.line({ object: 'trigger', forward_to: url.href, secret });
  // the envelope's fields in the spec's order, `sample` right after `livemode` as the API's samples have it
  const body = JSON.stringify({
    id: `evt_${randomBytes(12).toString('hex')}`, object: 'event', type, api_version: example.api_version, created: new Date().toISOString(),
    workspace_id: example.workspace_id, livemode: false, sample: true, data: example.data,
  });
  const outcome = await forward(url, body, secret);
  lim.line({ ...describeEvent(body), sample: true, ...outcome });
  return isSuccess(outcome.status) ? 0 : 1;
}
