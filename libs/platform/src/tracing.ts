import { Context, context, INVALID_SPANID, INVALID_TRACEID, propagation, ROOT_CONTEXT, Span, SpanKind, SpanOptions, SpanStatusCode, TextMapGetter, trace, TraceFlags, Tracer, TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ConfigError } from './config';
import { randomHex } from './ids';

/** The SDK's provider while spans are recorded (an exporter is set up); otherwise spans only carry the trace's ids. */
let provider: NodeTracerProvider | undefined;
let initialised = false;
let cachedTracer: Tracer | undefined;

export interface TracingOptions {
  /**
   * Whether the active span and request id follow the work through promises and callbacks (one
   * AsyncLocalStorage: the context manager), so that any log line and any request sent inside
   * the work carries them. Default true. The gateway turns it off: every line it logs within a
   * request names the request's span itself, and on Node 20 an AsyncLocalStorage costs every
   * promise of the process a hook (measured: docs/benchmarks.md, issue 15's leads bench).
   */
  implicitContext?: boolean;
}

/**
 * Spans are exported when `OTEL_TRACES_EXPORTER` names an exporter: `otlp` (OTLP over HTTP, to
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`) or `console`. Without
 * one, trace ids are still minted and propagated (W3C `traceparent` on every hop), so every log
 * line carries a `trace_id` that joins the services' logs of one request; such spans record
 * nothing and need no SDK (unsampledSpan): a trace costs one id pair from the random pool where
 * it starts, and `traceparent` and `tracestate` are the only headers propagated.
 */
export function initTracing(service: string, env: NodeJS.ProcessEnv = process.env, options: TracingOptions = {}): void {
  const name = (env.OTEL_TRACES_EXPORTER ?? 'none').trim();
  if (initialised) return;
  let exporter: SpanExporter | undefined;
  if (name === 'otlp') exporter = new OTLPTraceExporter();
  else if (name === 'console') exporter = new ConsoleSpanExporter();
  else if (name !== '' && name !== 'none') throw new ConfigError(`OTEL_TRACES_EXPORTER must be none, otlp or console, got "${name}"`);
  initialised = true;
  cachedTracer = undefined;
  // one AsyncLocalStorage carries the OpenTelemetry context, and the request id inside it (log-context.ts)
  const contextManager = options.implicitContext === false ? null : new AsyncLocalStorageContextManager();
  const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  if (exporter) {
    provider = new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': service }), spanProcessors: [new BatchSpanProcessor(exporter)] });
    provider.register({ contextManager, propagator });
    return;
  }
  trace.setGlobalTracerProvider(new UnsampledTracerProvider());
  propagation.setGlobalPropagator(propagator);
  if (contextManager) context.setGlobalContextManager(contextManager.enable());
}

/** Flushes and stops the exporter (on shutdown). */
export async function shutdownTracing(): Promise<void> {
  await provider?.shutdown().catch(() => undefined);
  provider = undefined;
}

export const tracer = (): Tracer => (cachedTracer ??= trace.getTracer('lead-intelligence'));

/**
 * A span that is never sampled nor exported, as the SDK's with an AlwaysOff sampler but without
 * it. Such a span records nothing and nobody sees its span id but its children, so a child is its
 * parent (the same ids, unsampled); only a trace's first span mints ids, from the random pool.
 */
function unsampledSpan(parent: Span | undefined): Span {
  const spanContext = parent?.spanContext();
  if (spanContext && trace.isSpanContextValid(spanContext)) {
    return spanContext.traceFlags === TraceFlags.NONE ? (parent as Span) : trace.wrapSpanContext({ ...spanContext, traceFlags: TraceFlags.NONE });
  }
  return trace.wrapSpanContext({ traceId: randomHex(16), spanId: randomHex(8), traceFlags: TraceFlags.NONE });
}

/** The tracer registered when nothing is exported (for code that asks the OpenTelemetry API for one). */
class UnsampledTracer implements Tracer {
  startSpan(_name: string, _options?: SpanOptions, parentContext: Context = context.active()): Span {
    return unsampledSpan(trace.getSpan(parentContext));
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...args: unknown[]): ReturnType<F> {
    const fn = args[args.length - 1] as F;
    const options = (args.length > 1 ? args[0] : undefined) as SpanOptions | undefined;
    const parent = (args.length > 2 ? args[1] : undefined) as Context | undefined;
    const span = this.startSpan(name, options, parent ?? context.active());
    return context.with(trace.setSpan(parent ?? context.active(), span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }
}

class UnsampledTracerProvider implements TracerProvider {
  private readonly only = new UnsampledTracer();
  getTracer(): Tracer {
    return this.only;
  }
}

/** Headers of a NATS message (or an HTTP request) as a propagation carrier. */
export interface HeaderLike {
  get(key: string): string | string[] | undefined;
}
const natsGetter: TextMapGetter<HeaderLike | undefined> = {
  get: (carrier, key) => {
    const value = carrier?.get(key);
    return value === '' ? undefined : value;
  },
  keys: () => ['traceparent', 'tracestate'],
};

/** What every hop of the mesh writes: version 00, lower-case hex (and nothing after the flags). */
const PLAIN_TRACEPARENT = /^00-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/;

/**
 * The trace context a message or request carries (W3C `traceparent`); none without one. A plain
 * `traceparent` alone (what our own hops send when nothing is exported) is read here, to the same
 * span context the W3C propagator makes (tracing.spec compares them); with `tracestate` or
 * `baggage`, another version, or an exporter set up, the propagators read the headers.
 */
export function extractTraceContext(carrier: HeaderLike | undefined): Context {
  const traceparent = carrier?.get('traceparent');
  if (traceparent === undefined || traceparent === '') return ROOT_CONTEXT;
  const plain = !provider && typeof traceparent === 'string' ? PLAIN_TRACEPARENT.exec(traceparent) : null;
  if (plain && !carrier?.get('tracestate') && !carrier?.get('baggage')) {
    const [, traceId, spanId, flags] = plain;
    if (traceId === INVALID_TRACEID || spanId === INVALID_SPANID) return ROOT_CONTEXT;
    return trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext({ traceId, spanId, traceFlags: parseInt(flags, 16), isRemote: true }));
  }
  return propagation.extract(ROOT_CONTEXT, carrier, natsGetter);
}

/** Sets the W3C headers that continue `span` (or the active context) on a request or message. */
export function injectTraceContext(span: Span | undefined, set: (key: string, value: string) => void): void {
  if (span && !provider) {
    // what the W3C propagator writes for an unsampled span, without building a context for it
    const spanContext = span.spanContext();
    if (!trace.isSpanContextValid(spanContext)) return;
    set('traceparent', `00-${spanContext.traceId}-${spanContext.spanId}-00`);
    if (spanContext.traceState) set('tracestate', spanContext.traceState.serialize());
    return;
  }
  const carrier = span ? trace.setSpan(context.active(), span) : context.active();
  propagation.inject(carrier, {}, { set: (_carrier, key, value) => set(key, value) });
}

export function startSpan(name: string, kind: SpanKind, parent: Context | Span | undefined, attributes: Record<string, string> = {}): Span {
  if (!provider) return unsampledSpan(parent === undefined || 'spanContext' in parent ? parent : trace.getSpan(parent));
  const parentContext = parent === undefined ? ROOT_CONTEXT : 'spanContext' in parent ? trace.setSpan(ROOT_CONTEXT, parent) : parent;
  return tracer().startSpan(name, { kind, attributes }, parentContext);
}

export function endSpan(span: Span, failed: boolean, attributes: Record<string, string | number> = {}): void {
  span.setAttributes(attributes);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

export { SpanKind };
