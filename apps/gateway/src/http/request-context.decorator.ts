import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { RequestContext } from '@app/contracts';
import { ApiError } from './api-error';

/** The authenticated caller, set by the pipeline. */
export const Ctx = createParamDecorator((_: unknown, host: ExecutionContext): RequestContext => {
  const request = host.switchToHttp().getRequest<FastifyRequest>();
  if (!request.ctx) throw new ApiError('authentication_failed', 'Send your API key as "Authorization: Bearer <key>"');
  return request.ctx;
});
