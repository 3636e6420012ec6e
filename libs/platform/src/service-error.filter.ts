import { ArgumentsHost, Catch } from '@nestjs/common';
import { BaseRpcExceptionFilter, RpcException } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import { DomainError } from './domain-error';
import { rootLogger } from './logger';
import { connectionBroke } from './pg-retry';

/**
 * The failures ServiceErrorFilter catches, as a type Nest's `@Catch` can match: a statement whose
 * database connection broke or was refused (connectionBroke), not a domain error. Nest picks a
 * handler's filter by `exception instanceof <each type of its @Catch>`, so this answers that test.
 */
export abstract class LostDatabaseConnection {
  static [Symbol.hasInstance](exception: unknown): boolean {
    return !(exception instanceof RpcException) && connectionBroke(exception);
  }
}

/**
 * How a service's request-reply handler (@Rpc, @PublicRpc) answers a statement whose database
 * connection broke or was refused (the primary stopped, a failover under way): as
 * `service_unavailable`, which the gateway answers 503 with `Retry-After`: the request may be sent
 * again once the database answers (ServiceClient first asks another replica). Whether the
 * statement took effect is the same question as before (a retried write is answered from what it
 * recorded: its Idempotency-Key, its ref); only the answer's code changes.
 *
 * It catches only that failure (`@Catch(LostDatabaseConnection)`): Nest asks a handler's filters
 * method first, then its controller's, then the app's global ones, and the first whose @Catch
 * matches answers; a method filter catching everything (`@Catch()`) would hide every failure from
 * an app's global filters. Any other failure goes on as if this filter were not there. A filter
 * and not an interceptor: an interceptor makes every handler's answer an Observable, which
 * NatsRpcServer sends as a stream (no RawJson, two packets) where a value is one packet.
 */
@Catch(LostDatabaseConnection)
export class ServiceErrorFilter extends BaseRpcExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): Observable<unknown> {
    rootLogger().warn({ err: (exception as Error).message }, 'database connection lost under a request: answered service_unavailable');
    return super.catch(new DomainError('service_unavailable', "The service's database is not answering for the moment; retry after Retry-After seconds (with the same Idempotency-Key on POST)"), host);
  }
}
