import { RouteConfig } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { FastifyRequest } from 'fastify';

/** What `@Public()` puts in the Fastify route config, where the pipeline's hooks read it. */
export interface PublicRouteConfig {
  public?: true;
  /** The route also takes an HTML form post (application/x-www-form-urlencoded) or a body-less one-click post. */
  forms?: boolean;
}

/**
 * A route served without an API key: its URL is its own credential (a signed link, a mailed
 * token) or it is the API's public documentation. The gateway pipeline admits it by this mark
 * (limited per client address) and the OpenAPI document gives it no security requirement.
 */
export const Public = (options: { forms?: boolean } = {}): MethodDecorator =>
  RouteConfig({ public: true, ...(options.forms ? { forms: true } : {}) } satisfies PublicRouteConfig);

/** The `@Public()` mark of the route a request matched (none for an unknown route). */
export function publicRouteOf(request: FastifyRequest): PublicRouteConfig {
  return (request.routeOptions.config ?? {}) as PublicRouteConfig;
}

/** Whether a controller method carries `@Public()` (read by the OpenAPI generator). */
export function isPublicHandler(handler: Function): boolean {
  return (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as PublicRouteConfig | undefined)?.public === true;
}
