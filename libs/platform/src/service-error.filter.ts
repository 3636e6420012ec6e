import { ArgumentsHost, Catch } from '@nestjs/common';
import { BaseRpcExceptionFilter, RpcException } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import { DomainError } from './domain-error';
import { rootLogger } from './logger';
import { connectionBroke } from './pg-retry';

/**
 * How a service's request-reply handler (@Rpc, @PublicRpc) answers a failure: as Nest's RPC
 * exception filter does (a domain error as its `{code, message, param}`, anything else as a
 * failure without internals), except that a statement whose database connection broke or was
 * refused (connectionBroke: the primary stopped, a failover under way) is answered
 * `service_unavailable`, which the gateway answers 503 with `Retry-After`: the request may be
 * sent again once the database answers (ServiceClient first asks another replica). Whether the
 * statement took effect is the same question as before (a retried write is answered from what it
 * recorded: its Idempotency-Key, its ref); only the answer's code changes.
 */
@Catch()
export class ServiceErrorFilter extends BaseRpcExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): Observable<unknown> {
    if (!(exception instanceof RpcException) && connectionBroke(exception)) {
      rootLogger().warn({ err: (exception as Error).message }, 'database connection lost under a request: answered service_unavailable');
      return super.catch(new DomainError('service_unavailable', "The service's database is not answering for the moment; retry after Retry-After seconds (with the same Idempotency-Key on POST)"), host);
    }
    return super.catch(exception, host);
  }
}
