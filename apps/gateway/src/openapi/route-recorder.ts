import { appendFileSync } from 'node:fs';
import { FastifyInstance } from 'fastify';

/**
 * Test aid: with GATEWAY_ROUTE_LOG set, every route the gateway's Fastify instance registers is
 * appended to that file as one JSON line `{"method","url"}`, so a test can check the served
 * routes against /api/v1/openapi.json without the gateway exposing anything new.
 */
export function installRouteRecorder(fastify: FastifyInstance, file: string | null): void {
  if (!file) return;
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) appendFileSync(file, `${JSON.stringify({ method, url: route.url })}\n`);
  });
}
