import { isDomainErrorPayload, RpcRequest } from '@app/contracts';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { runInScope } from './log-context';
import { rootLogger } from './logger';
import { histogram } from './metrics';
import { endSpan, extractTraceContext, type HeaderLike, SpanKind, startSpan } from './trace-context';

const handled = histogram('rpc_handler_duration_seconds', 'Time to handle one NATS request, by subject and outcome', ['subject', 'outcome']);

/** How a handled request ended: a reply, a domain error ({code, message, param}), or a failure. */
export type RpcOutcome = 'ok' | 'domain_error' | 'error';

export function outcomeOf(err: unknown): RpcOutcome {
  return err === undefined || err === null ? 'ok' : isDomainErrorPayload(err) ? 'domain_error' : 'error';
}

/** Ends the observation of one request (call once, with the outcome, when the reply goes out). */
export interface RpcObservation {
  (outcome: RpcOutcome, err?: unknown): void;
  /** Runs the handler inside the request's span and request id: its log lines and its own requests carry them. */
  run<T>(work: () => T): T;
}

/**
 * One log line, one latency sample and one span per NATS request a service handles, carrying the
 * request id and workspace the gateway put in the message, so a request is followed across the
 * hop. A failure is logged with its stack (never sent back: the reply carries no internals). The
 * handler runs under the request's deadline (`deadline`, epoch ms), which its own requests keep.
 */
export function observeRpc(subject: string, headers: HeaderLike | undefined, data: RpcRequest | undefined, deadline?: number): RpcObservation {
  const ctx = data?.ctx;
  const span = startSpan(`handle ${subject}`, SpanKind.SERVER, extractTraceContext(headers), {
    'messaging.destination.name': subject,
    'request.id': ctx?.request_id ?? '',
  });
  const started = process.hrtime.bigint();
  const traceId = span.spanContext().traceId;
  const done = ((outcome: RpcOutcome, err?: unknown) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    handled.observe({ subject, outcome }, seconds);
    endSpan(span, outcome === 'error', { outcome });
    const fields = { trace_id: traceId, request_id: ctx?.request_id, workspace_id: ctx?.workspace_id, subject, outcome, duration_ms: Math.round(seconds * 1000) };
    const log = rootLogger();
    if (outcome === 'error') log.error({ ...fields, err }, 'rpc failed');
    else log.info(fields, 'rpc handled');
  }) as RpcObservation;
  const scope = trace.setSpan(ROOT_CONTEXT, span);
  done.run = (work) => runInScope(scope, { request_id: ctx?.request_id, deadline }, work);
  return done;
}
