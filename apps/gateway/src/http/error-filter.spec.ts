import { SERVICE_UNAVAILABLE_RETRY_AFTER_S } from '@app/contracts';
import { ApiError } from './api-error';
import { toApiError } from './error-filter';

describe('a failure as the API answers it', () => {
  it('503 service_unavailable always carries Retry-After (issue 35), as 429 does; other codes add no header', () => {
    const unavailable = ApiError.unavailable('not answering');
    expect([unavailable.status, unavailable.code, unavailable.headers]).toEqual([503, 'service_unavailable', { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_S) }]);
    expect(new ApiError('service_unavailable', 'portal', undefined, { 'Retry-After': '60' }).headers).toEqual({ 'Retry-After': '60' });
    expect(new ApiError('internal_error', 'x').headers).toEqual({});
    expect(SERVICE_UNAVAILABLE_RETRY_AFTER_S).toBe(5);
  });

  it("the gateway's own database not answering (a failover) is 503 with Retry-After, without internals; any other failure stays 500", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const terminated = new Error('Connection terminated unexpectedly');
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const full = Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
    for (const err of [refused, terminated, shutdown, full]) {
      const error = toApiError(err);
      expect([error.status, error.code, error.headers['Retry-After']]).toEqual([503, 'service_unavailable', String(SERVICE_UNAVAILABLE_RETRY_AFTER_S)]);
      expect(error.message).not.toMatch(/ECONN|5432|terminat|administrator|too many/);
    }
    const bug = toApiError(new TypeError("Cannot read properties of undefined (reading 'id')"));
    expect([bug.status, bug.code, bug.headers]).toEqual([500, 'internal_error', {}]);
    const constraint = toApiError(Object.assign(new Error('duplicate key value'), { code: '23505' }));
    expect([constraint.status, constraint.code]).toEqual([500, 'internal_error']);
  });
});
