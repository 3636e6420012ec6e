import { MessagePattern } from '@nestjs/microservices';
import { RequestContext, RpcRequest } from '@app/contracts';
import { DomainError } from './domain-error';

/** Reads the `{ctx, body}` envelope of a request-reply message, refusing anything else. */
export function unpack<T>(message: RpcRequest<T>): { ctx: RequestContext; body: T } {
  if (!message || typeof message !== 'object' || !message.ctx || typeof message.ctx.workspace_id !== 'string') {
    throw new DomainError('internal_error', 'request without context');
  }
  return { ctx: message.ctx, body: message.body };
}

/**
 * A NATS request-reply handler of `subject` that receives the request's context and body:
 * `@Rpc(SUBJECTS.crm.tasksList) list(ctx: RequestContext, body: ListTasksRequest)`. The envelope
 * is checked once here (`unpack`), so a handler only decodes, calls its service and returns.
 */
export function Rpc(subject: string): MethodDecorator {
  return handlerOf(subject, (message: RpcRequest<unknown>) => {
    const { ctx, body } = unpack(message);
    return [ctx, body];
  });
}

/**
 * A request-reply handler of a subject that belongs to no workspace (a recipient's public link:
 * the gateway passes only the request id in the context). The handler receives whatever context
 * and body came, possibly none, and checks the body itself:
 * `@PublicRpc(SUBJECTS.sequences.optoutRequest) request(ctx: Partial<RequestContext>, body: { email?: unknown } | undefined)`.
 */
export function PublicRpc(subject: string): MethodDecorator {
  return handlerOf(subject, (message: Partial<RpcRequest<unknown>> | undefined) => [message?.ctx ?? {}, message?.body]);
}

/** The subject of each method wrapped by @Rpc or @PublicRpc (see rpcSubjectOf). */
const rpcSubjects = new WeakMap<object, string>();

/** The subject a controller method serves when @Rpc or @PublicRpc declared it (undefined otherwise). */
export function rpcSubjectOf(method: unknown): string | undefined {
  return typeof method === 'function' ? rpcSubjects.get(method) : undefined;
}

/** The method is wrapped before Nest records the pattern, so Nest's handler is the wrapper. */
function handlerOf<M>(subject: string, read: (message: M) => [unknown, unknown]): MethodDecorator {
  return (target, key, descriptor: PropertyDescriptor) => {
    const handle = descriptor.value as (this: unknown, ctx: unknown, body: unknown) => unknown;
    const wrapped = {
      // a named function keeps the handler's name in stack traces and Nest's route map
      [String(key)](this: unknown, message: M) {
        const [ctx, body] = read(message);
        return handle.call(this, ctx, body);
      },
    }[String(key)];
    rpcSubjects.set(wrapped, subject);
    descriptor.value = wrapped;
    MessagePattern(subject)(target, key, descriptor);
    return descriptor;
  };
}
