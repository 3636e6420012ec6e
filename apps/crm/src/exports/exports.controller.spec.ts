import { EXCEPTION_FILTERS_METADATA } from '@nestjs/common/constants';
import { ServiceErrorFilter } from '@app/platform';
import { ExportsController } from './exports.controller';

/**
 * Every request-reply handler of the controller answers a failure through ServiceErrorFilter (a
 * database connection lost under the request is `service_unavailable`, a 503 with Retry-After at
 * the gateway): the @Rpc ones through @Rpc, the signed file link's raw @MessagePattern by its own
 * @UseFilters (issue 35).
 */
describe('ExportsController: failures answered as a service answers them', () => {
  it.each(['create', 'get', 'file'] as const)('%s carries ServiceErrorFilter', (method) => {
    const filters: unknown[] = Reflect.getMetadata(EXCEPTION_FILTERS_METADATA, ExportsController.prototype[method]) ?? [];
    expect(filters.some((f) => f instanceof ServiceErrorFilter)).toBe(true);
  });
});
