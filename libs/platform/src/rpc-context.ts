import { RequestContext, RpcRequest } from '@app/contracts';
import { DomainError } from './domain-error';

/** Reads the `{ctx, body}` envelope of a request-reply message, refusing anything else. */
export function unpack<T>(message: RpcRequest<T>): { ctx: RequestContext; body: T } {
  if (!message || typeof message !== 'object' || !message.ctx || typeof message.ctx.workspace_id !== 'string') {
    throw new DomainError('internal_error', 'request without context');
  }
  return { ctx: message.ctx, body: message.body };
}
