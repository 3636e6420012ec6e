import { Injectable } from '@nestjs/common';
import {
  ApiVersion, EventEnvelope, ID_PREFIX, ListEndpointDeliveriesRequest, ListEnvelope, RequestContext, RetryDeliveryRequest, TestWebhookEndpointRequest,
  WebhookDelivery,
} from '@app/contracts';
import { decodeCursor, DomainError, newId, Queryable, toListPage, UnitOfWork } from '@app/platform';
import { DeliveriesRepository } from '../dispatch/deliveries.repository';
import { AttemptOfDelivery, renderDelivery } from '../dispatch/delivery.mapper';
import { SAMPLE_MAX_ATTEMPTS } from '../dispatch/delivery-rules';
import { DELIVERY_ID_PREFIX } from '../dispatch/fanout.consumer';
import { renderEvent } from '../dispatch/render';
import { sampleData } from '../events/sample-events';
import { EndpointRow, EndpointsRepository } from './endpoints.repository';

/** An endpoint's deliveries as its workspace sees them, a delivery sent again on request, and sample events. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly uow: UnitOfWork,
  ) {}

  /** Newest first, each with its attempts. */
  async list(ctx: RequestContext, query: ListEndpointDeliveriesRequest): Promise<ListEnvelope<WebhookDelivery>> {
    await this.endpointOf(ctx, query.id);
    const below = query.starting_after ? decodeCursor(query.starting_after) : undefined;
    const rows = await this.deliveries.listOfEndpoint(query.id, query.limit, below);
    const attempts = await this.attemptsByDelivery(rows.slice(0, query.limit).map((r) => r.id));
    return toListPage(rows, query.limit, (row) => renderDelivery(row, attempts.get(row.id) ?? []));
  }

  /**
   * Due again now, whatever its state: the dispatcher sends it at once, signed at that moment with
   * the endpoint's current secret(s), as attempt n + 1 of the same delivery (the same body and
   * event id). An attempt already in flight is left to finish; the delivery is returned as it is.
   */
  async retry(ctx: RequestContext, body: RetryDeliveryRequest): Promise<WebhookDelivery> {
    return this.uow.run((tx) =>
      // asked again with its Idempotency-Key: the first answer, and nothing sent again
      this.deliveries.retryKeys.run(tx, ctx, body.delivery_id, async () => {
        const endpoint = await this.endpointOf(ctx, body.id, tx);
        if (endpoint.status === 'disabled') {
          throw DomainError.conflict('The endpoint is disabled and receives nothing; enable it (PATCH status enabled) first', 'id');
        }
        // the attempts made before this retry: the answer is the delivery as scheduled (pending, due
        // now), whether or not the dispatcher has already sent it by the time the answer is built
        const before = (await this.attemptsByDelivery([body.delivery_id], tx)).get(body.delivery_id) ?? [];
        const result = await this.deliveries.retryNow(tx, body.id, body.delivery_id);
        if (!result) throw DomainError.notFound('webhook delivery', body.delivery_id, 'delivery_id');
        return renderDelivery(result.row, before);
      }, async (earlier) => (await this.deliveries.findOfEndpoint(body.id, earlier, tx)) !== undefined),
    );
  }

  /**
   * A sample event of `type` sent to this endpoint at once, whatever it subscribes to: a new
   * `evt_` id, `livemode` false and `sample` true, the type's sample `data`, rendered at the
   * endpoint's version and signed as every delivery is. It is a delivery like the others (its
   * attempts and list entry), retried once only (SAMPLE_MAX_ATTEMPTS), and no event: GET /events
   * and `listen` never show it.
   * A request retried after a gateway time-out with its Idempotency-Key answers the delivery
   * the first one made, sending nothing more.
   */
  async sendTest(ctx: RequestContext, body: TestWebhookEndpointRequest): Promise<WebhookDelivery> {
    const endpoint = await this.endpointOf(ctx, body.id);
    if (endpoint.status === 'disabled') {
      throw DomainError.conflict('The endpoint is disabled and receives nothing; enable it (PATCH status enabled) first', 'id');
    }
    const created = new Date().toISOString();
    const event: EventEnvelope = {
      id: newId(ID_PREFIX.event), object: 'event', type: body.type, api_version: endpoint.api_version as ApiVersion, created,
      workspace_id: ctx.workspace_id, livemode: false, sample: true, data: sampleData(body.type, created),
    };
    const id = newId(DELIVERY_ID_PREFIX);
    return this.uow.run((tx) =>
      this.deliveries.testKeys.run(tx, ctx, id, async () => {
        await this.deliveries.insertDeliveries(tx, [{
          id, endpoint_id: endpoint.id, event_id: event.id, event_type: event.type, event_created: created,
          body: renderEvent(event, endpoint.api_version as ApiVersion), claim_token: null, trace_context: null,
        }], 0);
        await this.deliveries.limitAttempts(tx, id, SAMPLE_MAX_ATTEMPTS);
        // the senders of every replica wake at the commit; whichever claims it sends it
        await this.deliveries.notifyUnclaimed(tx);
        return renderDelivery((await this.deliveries.findOfEndpoint(endpoint.id, id, tx))!, []);
      }, async (earlier) => {
        const row = await this.deliveries.findOfEndpoint(endpoint.id, earlier, tx);
        return row && renderDelivery(row, (await this.attemptsByDelivery([earlier])).get(earlier) ?? []);
      }),
    );
  }

  private async endpointOf(ctx: RequestContext, id: string, db?: Queryable): Promise<EndpointRow> {
    const row = await this.endpoints.findById(ctx.workspace_id, id, db);
    if (!row) throw DomainError.notFound('webhook endpoint', id, 'id');
    return row;
  }

  private async attemptsByDelivery(ids: string[], db?: Queryable): Promise<Map<string, AttemptOfDelivery[]>> {
    const byDelivery = new Map<string, AttemptOfDelivery[]>();
    for (const a of await this.deliveries.attemptsOf(ids, db)) {
      const list = byDelivery.get(a.delivery_id) ?? [];
      list.push(a);
      byDelivery.set(a.delivery_id, list);
    }
    return byDelivery;
  }
}
