import { FastifyRequest } from 'fastify';
import type { QueryParameters } from '../openapi/route-catalog';
import { ApiError } from './api-error';

/**
 * What PostgreSQL cannot store in text or jsonb: the NUL character, and a UTF-16 surrogate
 * without its pair (it has no UTF-8 form). Such input could only fail deep in a service.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first string (or object key) holding an unstorable character, as a field path (`tags.0`, `custom_fields.x`). */
export function unstorableField(value: unknown, path: string): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (!value || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    const param = path ? `${path}.${key}` : key;
    if (UNSTORABLE.test(key)) return param;
    const found = unstorableField(item, param);
    if (found) return found;
  }
  return null;
}

const UNSTORABLE_MESSAGE = 'holds a character that cannot be stored (a NUL byte or an unpaired UTF-16 surrogate)';

/** Path parameters: no object can have such an id, so it is not found, as any unknown id. */
export function checkPathParameters(request: FastifyRequest): void {
  const params = request.params as Record<string, string> | undefined;
  const bad = params ? unstorableField(params, '') : null;
  if (bad) throw new ApiError('not_found', `No such object: the ${bad} ${UNSTORABLE_MESSAGE}`, bad);
}

/** Query parameters: unstorable characters, and (where the route is documented) parameters the route does not take. */
export function checkQuery(request: FastifyRequest, takes: QueryParameters | undefined): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  const bad = unstorableField(query, '');
  if (bad) throw ApiError.invalid(bad, `The query parameter ${bad} ${UNSTORABLE_MESSAGE}`);
  if (!takes) return;
  for (const name of Object.keys(query)) {
    if (takes.names.has(name)) continue;
    const bracket = name.indexOf('[');
    if (bracket > 0 && takes.objects.has(name.slice(0, bracket))) continue;
    throw ApiError.invalid(name, `Unknown parameter: ${name}`);
  }
}

/** A parsed request body (JSON or a form). */
export function checkBody(body: unknown): void {
  const bad = unstorableField(body, '');
  if (bad !== null) throw ApiError.invalid(bad || undefined, `The body field ${bad || '(the body itself)'} ${UNSTORABLE_MESSAGE}`);
}
