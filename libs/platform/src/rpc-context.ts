import { applyDecorators, createParamDecorator, ExecutionContext, UseFilters } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RequestContext, RpcRequest } from '@app/contracts';
import { DomainError } from './domain-error';
import { ServiceErrorFilter } from './service-error.filter';

/** Reads the `{ctx, body}` envelope of a request-reply message, refusing anything else. */
export function unpack<T>(message: RpcRequest<T>): { ctx: RequestContext; body: T } {
  if (!message || typeof message !== 'object' || !message.ctx || typeof message.ctx.workspace_id !== 'string') {
    throw new DomainError('internal_error', 'request without context');
  }
  return { ctx: message.ctx, body: message.body };
}

/** One filter for every handler (it holds no state; it catches only a lost database connection). */
const SERVICE_ERRORS = new ServiceErrorFilter();

const envelopeOf = (host: ExecutionContext) => host.switchToRpc().getData<RpcRequest<unknown>>();

/** The request's context, once the envelope is checked (unpack): a message without one is refused. */
const RequestCtx = createParamDecorator((_: unknown, host: ExecutionContext) => unpack(envelopeOf(host)).ctx);
/** The request's body, once the envelope is checked (unpack). */
const RequestBody = createParamDecorator((_: unknown, host: ExecutionContext) => unpack(envelopeOf(host)).body);
/** Whatever context came (possibly none: `{}`). */
const AnyCtx = createParamDecorator((_: unknown, host: ExecutionContext) => (envelopeOf(host) as Partial<RpcRequest<unknown>> | undefined)?.ctx ?? {});
/** Whatever body came (possibly none). */
const AnyBody = createParamDecorator((_: unknown, host: ExecutionContext) => (envelopeOf(host) as Partial<RpcRequest<unknown>> | undefined)?.body);

/** Declares the handler's first parameter as the request's context and the second as its body. */
function envelopeParams(ctx: ParameterDecorator, body: ParameterDecorator): MethodDecorator {
  return (target, key) => {
    ctx(target, key, 0);
    body(target, key, 1);
  };
}

/**
 * A NATS request-reply handler of `subject` that receives the request's context and body:
 * `@Rpc(SUBJECTS.crm.tasksList) list(ctx: RequestContext, body: ListTasksRequest)`. Nest's
 * @MessagePattern with two parameter decorators: the method stays as written, so guards,
 * interceptors, pipes and filters declared on it (above or below @Rpc) run in Nest's pipeline,
 * and the envelope is checked there (`unpack`: a message without a workspace context is refused
 * with `internal_error`), so a handler only decodes, calls its service and returns. A statement
 * whose database connection was lost is answered `service_unavailable` (ServiceErrorFilter, which
 * catches only that); every other failure goes to the controller's and the app's filters as it is.
 */
export function Rpc(subject: string): MethodDecorator {
  return applyDecorators(MessagePattern(subject), UseFilters(SERVICE_ERRORS), envelopeParams(RequestCtx(), RequestBody()));
}

/**
 * A request-reply handler of a subject that belongs to no workspace (a recipient's public link:
 * the gateway passes only the request id in the context). The handler receives whatever context
 * and body came, possibly none, and checks the body itself:
 * `@PublicRpc(SUBJECTS.sequences.optoutRequest) request(ctx: Partial<RequestContext>, body: { email?: unknown } | undefined)`.
 */
export function PublicRpc(subject: string): MethodDecorator {
  return applyDecorators(MessagePattern(subject), UseFilters(SERVICE_ERRORS), envelopeParams(AnyCtx(), AnyBody()));
}
