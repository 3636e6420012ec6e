import { isDomainErrorPayload, RpcRequest } from '@app/contracts';
import { rootLogger } from './logger';
import { histogram } from './metrics';
import { endSpan, extractTraceContext, HeaderLike, SpanKind, startSpan } from './tracing';

const handled = histogram('rpc_handler_duration_seconds', 'Time to handle one NATS request, by subject and outcome', ['subject', 'outcome']);

/** How a handled request ended: a reply, a domain error ({code, message, param}), or a failure. */
export type RpcOutcome = 'ok' | 'domain_error' | 'error';

export function outcomeOf(err: unknown): RpcOutcome {
  return err === undefined || err === null ? 'ok' : isDomainErrorPayload(err) ? 'domain_error' : 'error';
}

/**
 * One log line, one latency sample and one span per NATS request a service handles, carrying the
 * request id and workspace the gateway put in the message, so a request is followed across the
 * hop. Call the returned function once, with the outcome, when the reply goes out.
 */
export function observeRpc(subject: string, headers: HeaderLike | undefined, data: RpcRequest | undefined): (outcome: RpcOutcome, err?: unknown) => void {
  const ctx = data?.ctx;
  const span = startSpan(`handle ${subject}`, SpanKind.SERVER, extractTraceContext(headers), {
    'messaging.destination.name': subject,
    'request.id': ctx?.request_id ?? '',
  });
  const started = process.hrtime.bigint();
  return (outcome, err) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    handled.observe({ subject, outcome }, seconds);
    endSpan(span, outcome === 'error', { outcome });
    const fields = { request_id: ctx?.request_id, workspace_id: ctx?.workspace_id, subject, outcome, duration_ms: Math.round(seconds * 1000) };
    const log = rootLogger();
    if (outcome === 'error') log.error({ ...fields, err: (err as Error)?.message ?? err }, 'rpc failed');
    else log.info(fields, 'rpc handled');
  };
}
