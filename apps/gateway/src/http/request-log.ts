import { FastifyReply, FastifyRequest } from 'fastify';
import { counter, endSpan, histogram, rootLogger } from '@app/platform';

const requests = counter('http_requests_total', 'HTTP requests answered by the gateway', ['method', 'route', 'status']);
const latency = histogram('http_request_duration_seconds', 'Time to answer an HTTP request at the gateway', ['method', 'route', 'status']);
const log = rootLogger('gateway');

/**
 * What every line the gateway logs about a request names: its trace (the request's span) and its
 * id. The gateway has no implicit context (initTracing), so its lines carry these themselves.
 */
export function requestLogFields(request: FastifyRequest): { trace_id?: string; request_id: string } {
  return { trace_id: request.span?.spanContext().traceId, request_id: request.id };
}

/** One log line and one latency sample per answered request, labelled by route pattern. */
export function observeResponse(request: FastifyRequest, reply: FastifyReply): void {
  const route = request.routeOptions?.url ?? 'unmatched';
  const status = String(reply.statusCode);
  const seconds = reply.elapsedTime / 1000;
  if (request.span) endSpan(request.span, reply.statusCode >= 500, { 'http.route': route, 'http.response.status_code': reply.statusCode });
  requests.inc({ method: request.method, route, status });
  latency.observe({ method: request.method, route, status }, seconds);
  if (route === '/metrics' || route.startsWith('/health')) return;
  log.info(
      {
        trace_id: request.span?.spanContext().traceId,
        request_id: request.id,
        client_request_id: request.clientRequestId,
        workspace_id: request.ctx?.workspace_id, method: request.method, route, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime),
      },
      'request',
  );
}
