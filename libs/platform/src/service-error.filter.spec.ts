import { ArgumentsHost } from '@nestjs/common';
import { lastValueFrom } from 'rxjs';
import { DomainError } from './domain-error';
import { ServiceErrorFilter } from './service-error.filter';

/** What the filter answers a handler's failure with (the packet's `err`). */
async function answered(exception: unknown): Promise<unknown> {
  const host = { getType: () => 'rpc' } as unknown as ArgumentsHost;
  return lastValueFrom(new ServiceErrorFilter().catch(exception, host)).then(
    () => { throw new Error('answered without a failure'); },
    (err: unknown) => err,
  );
}

describe('ServiceErrorFilter: how a service answers a failed request (issue 35)', () => {
  it('a statement whose database connection broke or was refused: service_unavailable, without internals', async () => {
    const failures = [
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
    ];
    for (const failure of failures) {
      const err = (await answered(failure)) as { code: string; message: string };
      expect(err.code).toBe('service_unavailable');
      expect(err.message).not.toMatch(/ECONN|5432|terminat|administrator|starting/);
    }
  });

  it('a domain error as it is; any other failure as Nest answers it (no code, no internals)', async () => {
    expect(await answered(DomainError.notFound('lead', 'lead_1'))).toEqual({ code: 'not_found', message: "No such lead: 'lead_1'" });
    expect(await answered(new DomainError('internal_error', 'x'))).toEqual({ code: 'internal_error', message: 'x' });
    expect(await answered(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toEqual({ status: 'error', message: 'Internal server error' });
    expect(await answered(new TypeError('boom'))).toEqual({ status: 'error', message: 'Internal server error' });
  });
});
