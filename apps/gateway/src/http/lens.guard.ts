import { CanActivate, ExecutionContext, UseGuards } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { LENSES } from '@app/contracts';
import { ApiError } from './api-error';

/** The value at a dotted path (`filter.lens`) of a parsed body or query, if any. */
export function valueAt(input: unknown, path: readonly string[]): unknown {
  let value = input;
  for (const key of path) {
    if (!value || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * Refuses (403, `param` the field) a lens the workspace's plan does not include. Only a valid
 * lens is judged here: any other value is the input pipe's to refuse (400).
 */
export class LensGuard implements CanActivate {
  private readonly path: string[];

  constructor(
    private readonly from: 'body' | 'query',
    private readonly param: string,
  ) {
    this.path = param.split('.');
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const lens = valueAt(this.from === 'body' ? request.body : request.query, this.path);
    if (typeof lens === 'string' && (LENSES as readonly string[]).includes(lens) && request.ctx && !request.ctx.lenses.includes(lens as never)) {
      throw new ApiError('permission_denied', `The lens '${lens}' is not included in this workspace's plan`, this.param);
    }
    return true;
  }
}

/** `@LensOnPlan('query', 'lens')`: the lens a request names (in its query or body, at a dotted path) must be on the plan. */
export const LensOnPlan = (from: 'body' | 'query', param: string): MethodDecorator & ClassDecorator =>
  UseGuards(new LensGuard(from, param));
