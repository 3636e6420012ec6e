import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { Observable, tap } from 'rxjs';
import { RpcRequest } from '@app/contracts';
import { rootLogger } from './logger';
import { histogram } from './metrics';
import { endSpan, extractTraceContext, SpanKind, startSpan } from './tracing';

const handled = histogram('rpc_handler_duration_seconds', 'Time to handle one NATS request, by subject and outcome', ['subject', 'outcome']);

/**
 * One log line and one latency sample per NATS request a service handles, carrying the request
 * id and workspace the gateway put in the message, so a request is followed across the hop.
 */
@Injectable()
export class RpcObserverInterceptor implements NestInterceptor {
  private readonly log = rootLogger();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const rpc = context.switchToRpc();
    const subject = rpc.getContext<NatsContext>().getSubject();
    const ctx = rpc.getData<RpcRequest>()?.ctx;
    const span = startSpan(`handle ${subject}`, SpanKind.SERVER, extractTraceContext(rpc.getContext<NatsContext>().getHeaders()), {
      'messaging.destination.name': subject,
      'request.id': ctx?.request_id ?? '',
    });
    const started = process.hrtime.bigint();
    const done = (outcome: string, err?: unknown) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      handled.observe({ subject, outcome }, seconds);
      endSpan(span, outcome === 'error', { outcome });
      const fields = { request_id: ctx?.request_id, workspace_id: ctx?.workspace_id, subject, outcome, duration_ms: Math.round(seconds * 1000) };
      if (outcome === 'error') this.log.error({ ...fields, err: (err as Error)?.message ?? err }, 'rpc failed');
      else this.log.info(fields, 'rpc handled');
    };
    return next.handle().pipe(
      tap({
        next: () => done('ok'),
        error: (err: { getError?: () => unknown }) => done(typeof err?.getError === 'function' ? 'domain_error' : 'error', err),
      }),
    );
  }
}
