import { Context, context, propagation, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, TextMapGetter, trace, Tracer, TracerProvider } from '@opentelemetry/api';

/** Where spans come from: the provider initTracing made (tracing.ts), else the global API's. */
let source: TracerProvider | undefined;
let cachedTracer: Tracer | undefined;

/**
 * Makes `provider` the source of every span started here. Only tracing.ts calls it: the helpers of
 * this file need only `@opentelemetry/api`, so a process that starts spans without setting up the
 * SDK (the admin CLI, the test harness) does not load the SDK.
 */
export function useTracerProvider(provider: TracerProvider): void {
  source = provider;
  cachedTracer = undefined;
}

export const tracer = (): Tracer => (cachedTracer ??= (source ?? trace).getTracer('lead-intelligence'));

/** Headers of a NATS message (or an HTTP request) as a propagation carrier. */
export interface HeaderLike {
  get(key: string): string | string[] | undefined;
}
const headerGetter: TextMapGetter<HeaderLike | undefined> = {
  get: (carrier, key) => {
    const value = carrier?.get(key);
    return value === '' ? undefined : value;
  },
  keys: () => ['traceparent', 'tracestate', 'baggage'],
};

/** The trace context a message or request carries (W3C `traceparent`, read by the propagator); none without one. */
export function extractTraceContext(carrier: HeaderLike | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, carrier, headerGetter);
}

/** Sets the W3C headers that continue `span` (or the active context) on a request or message. */
export function injectTraceContext(span: Span | undefined, set: (key: string, value: string) => void): void {
  const carrier = span ? trace.setSpan(context.active(), span) : context.active();
  propagation.inject(carrier, {}, { set: (_carrier, key, value) => set(key, value) });
}

/** A span of the process's tracer: a child of `parent` (a span or a context), or a trace's root without one. */
export function startSpan(name: string, kind: SpanKind, parent: Context | Span | undefined, attributes: Record<string, string> = {}): Span {
  const parentContext = parent === undefined ? ROOT_CONTEXT : 'spanContext' in parent ? trace.setSpan(ROOT_CONTEXT, parent) : parent;
  return tracer().startSpan(name, { kind, attributes }, parentContext);
}

export function endSpan(span: Span, failed: boolean, attributes: Record<string, string | number> = {}): void {
  span.setAttributes(attributes);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

export { SpanKind };
