import { TextMapPropagator } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, BatchSpanProcessor, ConsoleSpanExporter, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ConfigError } from './config-error';
import { useTracerProvider } from './trace-context';

export { endSpan, extractTraceContext, type HeaderLike, injectTraceContext, SpanKind, startSpan, tracer } from './trace-context';

/**
 * The OTLP exporter's class, loaded when asked for: it brings its transport and encoding with it,
 * which a process that exports nothing (the default, the admin CLI, the tests) need not load at
 * every start.
 */
function otlpExporter(): typeof import('@opentelemetry/exporter-trace-otlp-http').OTLPTraceExporter {
  return (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter;
}

/** The process's tracer provider (initTracing), until shutdownTracing. */
let provider: NodeTracerProvider | undefined;

/**
 * Tracing through the OpenTelemetry SDK, registered as the process's provider, context manager
 * (one AsyncLocalStorage: the active span, and the request id inside it, follow the work through
 * promises and callbacks, so any log line and any request sent inside the work carry them) and
 * propagator (W3C `traceparent`).
 *
 * Spans are exported when `OTEL_TRACES_EXPORTER` names an exporter: `otlp` (OTLP over HTTP, to
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`) or `console`; the SDK
 * reads its sampler from `OTEL_TRACES_SAMPLER` (parent-based, always on by default), and
 * `baggage` is propagated beside the trace context. Without one, nothing is recorded: the
 * sampler is AlwaysOff, whatever an inbound `traceparent` says (a span nobody exports is not
 * worth recording), so every span is the SDK's non-recording one. Trace ids are still minted
 * (the SDK's id generator, where a trace starts) and propagated, so every log line carries a
 * `trace_id` that joins the services' logs of one request; `traceparent` and `tracestate` are
 * the only headers propagated.
 */
export function initTracing(service: string, env: NodeJS.ProcessEnv = process.env): void {
  if (provider) return;
  const name = (env.OTEL_TRACES_EXPORTER ?? 'none').trim();
  let exporter: SpanExporter | undefined;
  if (name === 'otlp') exporter = new (otlpExporter())();
  else if (name === 'console') exporter = new ConsoleSpanExporter();
  else if (name !== '' && name !== 'none') throw new ConfigError(`OTEL_TRACES_EXPORTER must be none, otlp or console, got "${name}"`);
  const resource = resourceFromAttributes({ 'service.name': service });
  let propagator: TextMapPropagator;
  if (exporter) {
    provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
    propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  } else {
    provider = new NodeTracerProvider({ resource, sampler: new AlwaysOffSampler() });
    propagator = new W3CTraceContextPropagator();
  }
  useTracerProvider(provider);
  // the default context manager: AsyncLocalStorage
  provider.register({ propagator });
}

/** Flushes and stops the exporter (on shutdown). */
export async function shutdownTracing(): Promise<void> {
  await provider?.shutdown().catch(() => undefined);
}
