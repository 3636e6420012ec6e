import { ArgumentsHost } from '@nestjs/common';
import { FILTER_CATCH_EXCEPTIONS } from '@nestjs/common/constants';
import { lastValueFrom } from 'rxjs';
import { DomainError } from './domain-error';
import { ServiceErrorFilter } from './service-error.filter';

/** Whether Nest hands `exception` to the filter: as Nest selects a filter, `instanceof` each type of its @Catch. */
function caught(exception: unknown): boolean {
  const types: (new (...args: never[]) => unknown)[] = Reflect.getMetadata(FILTER_CATCH_EXCEPTIONS, ServiceErrorFilter) ?? [];
  expect(types.length).toBeGreaterThan(0);
  return types.some((type) => exception instanceof type);
}

/** What the filter answers a failure it catches with (the packet's `err`). */
async function answered(exception: unknown): Promise<unknown> {
  const host = { getType: () => 'rpc' } as unknown as ArgumentsHost;
  return lastValueFrom(new ServiceErrorFilter().catch(exception, host)).then(
    () => { throw new Error('answered without a failure'); },
    (err: unknown) => err,
  );
}

describe('ServiceErrorFilter: how a service answers a failed request (issue 35)', () => {
  it('a statement whose database connection broke or was refused: caught, service_unavailable, without internals', async () => {
    const failures = [
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      // every connection slot of the server taken (max_connections): refused at its start, nothing ran
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
    ];
    for (const failure of failures) {
      expect(caught(failure)).toBe(true);
      const err = (await answered(failure)) as { code: string; message: string };
      expect(err.code).toBe('service_unavailable');
      expect(err.message).not.toMatch(/ECONN|5432|terminat|administrator|starting|too many/);
    }
  });

  it("a domain error or any other failure is not caught: it goes on to the app's filters, or Nest's answer, as it is", () => {
    expect(caught(DomainError.notFound('lead', 'lead_1'))).toBe(false);
    expect(caught(new DomainError('internal_error', 'x'))).toBe(false);
    expect(caught(new DomainError('service_unavailable', 'x'))).toBe(false);
    expect(caught(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toBe(false);
    expect(caught(new TypeError('boom'))).toBe(false);
    expect(caught(undefined)).toBe(false);
    expect(caught('a string')).toBe(false);
  });
});
