import { Controller, Inject, Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DeadEvent, deadEventsSubject, ListDeadEventsRequest, ReplayDeadEventsRequest, ReplayDeadEventsResult, replayEventsSubject, RpcRequest,
  ServiceName,
} from '@app/contracts';
import { DeadLetters } from './dead-letters';
import { DomainError } from './domain-error';
import { unpack } from './rpc-context';
import { DEAD_LETTERS } from './tokens';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** A controller answering the operator's `<service>.events.dead` and `<service>.events.replay`. */
export function deadEventsControllerFor(service: ServiceName): Type<unknown> {
  @Controller()
  class DeadEventsController {
    constructor(@Inject(DEAD_LETTERS) private readonly deadLetters: DeadLetters) {}

    @MessagePattern(deadEventsSubject(service))
    async list(@Payload() message: RpcRequest<ListDeadEventsRequest>): Promise<{ data: DeadEvent[] }> {
      const limit = unpack(message).body?.limit ?? DEFAULT_LIMIT;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw DomainError.invalid('limit', `limit must be an integer from 1 to ${MAX_LIMIT}`);
      return { data: await this.deadLetters.list(limit) };
    }

    @MessagePattern(replayEventsSubject(service))
    async replay(@Payload() message: RpcRequest<ReplayDeadEventsRequest>): Promise<ReplayDeadEventsResult> {
      const body = unpack(message).body ?? {};
      const eventId = typeof body.event_id === 'string' && body.event_id !== '' ? body.event_id : undefined;
      if ((eventId === undefined) === (body.all !== true)) throw DomainError.invalid('event_id', 'give either event_id or all: true');
      return this.deadLetters.replay(eventId);
    }
  }
  return DeadEventsController;
}
