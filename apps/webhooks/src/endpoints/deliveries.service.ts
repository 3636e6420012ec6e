import { Injectable } from '@nestjs/common';
import { ListEndpointDeliveriesRequest, ListEnvelope, RequestContext, RetryDeliveryRequest, WebhookDelivery } from '@app/contracts';
import { decodeCursor, DomainError, toListPage } from '@app/platform';
import { DeliveriesRepository } from '../dispatch/deliveries.repository';
import { AttemptOfDelivery, renderDelivery } from '../dispatch/delivery.mapper';
import { EndpointRow, EndpointsRepository } from './endpoints.repository';

/** An endpoint's deliveries as its workspace sees them, and a delivery sent again on request. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly deliveries: DeliveriesRepository,
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
    const endpoint = await this.endpointOf(ctx, body.id);
    if (endpoint.status === 'disabled') {
      throw DomainError.conflict('The endpoint is disabled and receives nothing; enable it (PATCH status enabled) first', 'id');
    }
    // the attempts made before this retry: the answer is the delivery as scheduled (pending, due
    // now), whether or not the dispatcher has already sent it by the time the answer is built
    const before = (await this.attemptsByDelivery([body.delivery_id])).get(body.delivery_id) ?? [];
    const result = await this.deliveries.retryNow(body.id, body.delivery_id);
    if (!result) throw DomainError.notFound('webhook delivery', body.delivery_id, 'delivery_id');
    return renderDelivery(result.row, before);
  }

  private async endpointOf(ctx: RequestContext, id: string): Promise<EndpointRow> {
    const row = await this.endpoints.findById(ctx.workspace_id, id);
    if (!row) throw DomainError.notFound('webhook endpoint', id, 'id');
    return row;
  }

  private async attemptsByDelivery(ids: string[]): Promise<Map<string, AttemptOfDelivery[]>> {
    const byDelivery = new Map<string, AttemptOfDelivery[]>();
    for (const a of await this.deliveries.attemptsOf(ids)) {
      const list = byDelivery.get(a.delivery_id) ?? [];
      list.push(a);
      byDelivery.set(a.delivery_id, list);
    }
    return byDelivery;
  }
}
