import { Context, context, propagation, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, TextMapGetter, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, BatchSpanProcessor, ConsoleSpanExporter, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ConfigError } from './config';

let provider: NodeTracerProvider | undefined;

/**
 * Spans are exported when `OTEL_TRACES_EXPORTER` names an exporter: `otlp` (OTLP over HTTP, to
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`) or `console`. Without
 * one, a provider that samples nothing still mints and propagates trace ids (W3C `traceparent`
 * on every hop), so every log line carries a `trace_id` that joins the services' logs of one
 * request; unsampled spans cost next to nothing and are never exported.
 */
export function initTracing(service: string, env: NodeJS.ProcessEnv = process.env): void {
  const name = (env.OTEL_TRACES_EXPORTER ?? 'none').trim();
  if (provider) return;
  let exporter: SpanExporter | undefined;
  if (name === 'otlp') exporter = new OTLPTraceExporter();
  else if (name === 'console') exporter = new ConsoleSpanExporter();
  else if (name !== '' && name !== 'none') throw new ConfigError(`OTEL_TRACES_EXPORTER must be none, otlp or console, got "${name}"`);
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    ...(exporter ? { spanProcessors: [new BatchSpanProcessor(exporter)] } : { sampler: new AlwaysOffSampler() }),
  });
  provider.register();
}

/** Flushes and stops the exporter (on shutdown). */
export async function shutdownTracing(): Promise<void> {
  await provider?.shutdown().catch(() => undefined);
  provider = undefined;
}

export const tracer = () => trace.getTracer('lead-intelligence');

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

/** The trace context a message or request carries (W3C `traceparent`). */
export function extractTraceContext(carrier: HeaderLike | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, carrier, natsGetter);
}

export function injectTraceContext(span: Span | undefined, set: (key: string, value: string) => void): void {
  const carrier = span ? trace.setSpan(context.active(), span) : context.active();
  propagation.inject(carrier, {}, { set: (_carrier, key, value) => set(key, value) });
}

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
