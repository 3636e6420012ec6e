import { Context, context, createContextKey, INVALID_TRACEID, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { endSpan, SpanKind, startSpan } from './trace-context';

/** What a unit of work (an HTTP request, a NATS request, an event, a delivery) is logged under. */
export interface WorkScope {
  request_id?: string;
  /**
   * When the caller stops waiting for this work (epoch ms, the `Rpc-Deadline` its request
   * carried): the requests this work sends end by then (ServiceClient), and waits inside it need
   * not outlast it.
   */
  deadline?: number;
}

/** The request id rides in the OpenTelemetry context: one AsyncLocalStorage (the context manager) carries both. */
const REQUEST_ID = createContextKey('lead-intelligence.request_id');
const DEADLINE = createContextKey('lead-intelligence.deadline');

/**
 * Runs `work` with `traceContext` active (spans started and requests sent inside continue its
 * trace) and `scope` as the request its log lines name. In a process that did not set up
 * tracing (initTracing) it simply runs `work`.
 */
export function runInScope<T>(traceContext: Context, scope: WorkScope, work: () => T): T {
  let active = scope.request_id ? traceContext.setValue(REQUEST_ID, scope.request_id) : traceContext;
  if (scope.deadline !== undefined) active = active.setValue(DEADLINE, scope.deadline);
  return context.with(active, work);
}

/** When the caller of the active work stops waiting (epoch ms), if it said (WorkScope.deadline). */
export function activeDeadline(): number | undefined {
  return context.active().getValue(DEADLINE) as number | undefined;
}

/** The active scope's request id (the request that caused the work), if any. */
export function activeRequestId(): string | undefined {
  return context.active().getValue(REQUEST_ID) as string | undefined;
}

/**
 * The fields every log line carries (pino's mixin): the trace id of the active span and the
 * request id of the active scope; a line logged outside any unit of work carries neither.
 */
export function logCorrelation(): { trace_id?: string; request_id?: string } {
  const active = context.active();
  const traceId = trace.getSpanContext(active)?.traceId;
  const requestId = active.getValue(REQUEST_ID) as string | undefined;
  const fields: { trace_id?: string; request_id?: string } = {};
  if (traceId && traceId !== INVALID_TRACEID) fields.trace_id = traceId;
  if (requestId) fields.request_id = requestId;
  return fields;
}

/**
 * What a unit of work hands to the work it causes later (an outbox event, a queued delivery): the
 * W3C trace headers and the request id, as NATS headers or a JSON column carry them.
 */
export type TraceCarrier = Record<string, string>;

export const REQUEST_ID_HEADER = 'Request-Id';
const CARRIED = ['traceparent', 'tracestate', REQUEST_ID_HEADER];

/** The active trace context and request id as a carrier; undefined outside any unit of work. */
export function currentCarrier(): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  const requestId = activeRequestId();
  if (requestId) carrier[REQUEST_ID_HEADER] = requestId;
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** The carrier of a NATS message's headers (those this mesh propagates). */
export function carrierOfHeaders(headers: { get(key: string): string } | undefined): TraceCarrier | undefined {
  if (!headers) return undefined;
  const carrier: TraceCarrier = {};
  for (const key of CARRIED) {
    const value = headers.get(key);
    if (value) carrier[key] = value;
  }
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/**
 * Runs `work` as a continuation of the work that left `carrier`: in a new span of its trace
 * (`name`) and under its request id; a missing carrier starts a trace of its own. The span ends
 * when the work settles, failed if it threw.
 */
export async function continueFrom<T>(carrier: TraceCarrier | undefined | null, name: string, kind: SpanKind, attributes: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, carrier ?? {});
  const span = startSpan(name, kind, parent, attributes);
  try {
    const result = await runInScope(trace.setSpan(ROOT_CONTEXT, span), { request_id: carrier?.[REQUEST_ID_HEADER] }, work);
    endSpan(span, false);
    return result;
  } catch (err) {
    endSpan(span, true);
    throw err;
  }
}
