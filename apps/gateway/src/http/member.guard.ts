import { applyDecorators, CanActivate, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyRequest } from 'fastify';
import { ApiKeysRepository } from '../auth/api-keys.repository';
import { ApiError } from './api-error';
import { ID_MAX_LENGTH } from './input.pipe';

const MEMBER_FIELD = 'gateway:member-field';

/**
 * Members live in the gateway: a body field naming a member (`owner_id`, `assignee_id`) that is
 * not a member of the caller's workspace does not exist (404, `param` the field). Only a
 * well-formed id is looked up: any other value is the input pipe's to refuse (400); null is
 * "unassign" and absent is "unchanged".
 */
@Injectable()
export class MemberGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysRepository,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const field = this.reflector.get<string | undefined>(MEMBER_FIELD, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const body = request.body as Record<string, unknown> | undefined;
    const id = field && body && typeof body === 'object' && Object.prototype.hasOwnProperty.call(body, field) ? body[field] : undefined;
    if (typeof id !== 'string' || id.length > ID_MAX_LENGTH || !request.ctx) return true;
    if (!(await this.keys.memberExists(request.ctx.workspace_id, id))) {
      throw new ApiError('not_found', `No such member: '${id}'`, field);
    }
    return true;
  }
}

/** `@MemberOf('owner_id')`: the body field, when it holds an id, names a member of the caller's workspace. */
export const MemberOf = (field: string): MethodDecorator => applyDecorators(SetMetadata(MEMBER_FIELD, field), UseGuards(MemberGuard));
