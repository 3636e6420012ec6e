import { defaultTextMapGetter, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { currentCarrier, logCorrelation, runInScope } from './log-context';
import { extractTraceContext, initTracing, injectTraceContext, SpanKind, startSpan } from './tracing';

/** Spans when nothing is exported (no initTracing exporter): the SDK records nothing, ids and W3C headers on every hop. */
describe('unsampled tracing', () => {
  beforeAll(() => initTracing('tracing-spec', {}));
  const headers = (values: Record<string, string>) => ({ get: (key: string) => values[key] });
  const injected = (span: Parameters<typeof injectTraceContext>[0]) => {
    const out: Record<string, string> = {};
    injectTraceContext(span, (key, value) => (out[key] = value));
    return out;
  };

  it('a trace starts with new ids, unsampled, and every root is a trace of its own', () => {
    const a = startSpan('a', SpanKind.SERVER, undefined).spanContext();
    const b = startSpan('b', SpanKind.SERVER, ROOT_CONTEXT).spanContext();
    for (const ids of [a, b]) {
      expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(ids.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(trace.isSpanContextValid(ids)).toBe(true);
      expect(ids.traceFlags).toBe(TraceFlags.NONE);
    }
    expect(a.traceId).not.toBe(b.traceId);
  });

  it('records nothing, whatever the caller sampled', () => {
    const sampled = extractTraceContext(headers({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }));
    for (const span of [startSpan('root', SpanKind.SERVER, undefined), startSpan('continued', SpanKind.SERVER, sampled)]) {
      expect(span.isRecording()).toBe(false);
    }
  });

  it("carries the active span and the request id through awaits, into log lines and the carrier of the work's events", async () => {
    const span = startSpan('server', SpanKind.SERVER, extractTraceContext(headers({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })));
    const seen = await runInScope(trace.setSpan(ROOT_CONTEXT, span), { request_id: 'req_1' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      await Promise.resolve();
      return { log: logCorrelation(), carrier: currentCarrier() };
    });
    expect(seen.log).toEqual({ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', request_id: 'req_1' });
    expect(seen.carrier).toEqual({ traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${span.spanContext().spanId}-00`, 'Request-Id': 'req_1' });
    // outside the work: neither
    expect(logCorrelation()).toEqual({});
    expect(currentCarrier()).toBeUndefined();
  });

  it('propagates no baggage when nothing is exported', () => {
    const inbound = extractTraceContext(headers({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', baggage: 'k=v' }));
    const out = injected(startSpan('client', SpanKind.CLIENT, inbound));
    expect(Object.keys(out).sort()).toEqual(['traceparent']);
  });

  it('a child continues its parent, given as a span or a context', () => {
    const root = startSpan('root', SpanKind.SERVER, undefined);
    const child = startSpan('child', SpanKind.CLIENT, root);
    const grandchild = startSpan('grandchild', SpanKind.CLIENT, trace.setSpan(ROOT_CONTEXT, child));
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(grandchild.spanContext().traceId).toBe(root.spanContext().traceId);
  });

  it("continues an inbound traceparent's trace, unsampled, and writes it on", () => {
    const inbound = extractTraceContext(headers({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'vendor=x' }));
    const span = startSpan('server', SpanKind.SERVER, inbound);
    expect(span.spanContext()).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', traceFlags: TraceFlags.NONE });
    const out = injected(startSpan('client', SpanKind.CLIENT, span));
    expect(out.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-00$/);
    expect(out.tracestate).toBe('vendor=x');
    // and what it writes is read back as the same trace
    expect(trace.getSpanContext(extractTraceContext(headers(out)))?.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('no traceparent, an empty one or an invalid one starts a new trace', () => {
    for (const carrier of [undefined, headers({}), headers({ traceparent: '' }), headers({ traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' })]) {
      const span = startSpan('server', SpanKind.SERVER, extractTraceContext(carrier));
      expect(trace.isSpanContextValid(span.spanContext())).toBe(true);
      expect(span.spanContext().traceId).not.toBe('00000000000000000000000000000000');
    }
  });

  it("reads a traceparent, from NATS or HTTP headers, to the same span context as OpenTelemetry's W3C propagator, valid or not", () => {
    const w3c = new W3CTraceContextPropagator();
    const id = '4bf92f3577b34da6a3ce929d0e0e4736';
    const span = '00f067aa0ba902b7';
    const cases: Record<string, string>[] = [
      ...['00', '01', '02', 'ff', '0a'].map((flags) => ({ traceparent: `00-${id}-${span}-${flags}` })),
      { traceparent: `00-${'0'.repeat(32)}-${span}-01` },
      { traceparent: `00-${id}-${'0'.repeat(16)}-01` },
      { traceparent: `00-${id.toUpperCase()}-${span}-01` },
      { traceparent: `00-${id}-${span}-01-extra` },
      { traceparent: `01-${id}-${span}-01-extra` },
      { traceparent: `01-${id}-${span}-01` },
      { traceparent: `ff-${id}-${span}-01` },
      { traceparent: ` 00-${id}-${span}-01 ` },
      { traceparent: `00-${id}-${span}-1` },
      { traceparent: `00-${id.slice(1)}-${span}-01` },
      { traceparent: `00-${id}x-${span}-01` },
      { traceparent: `00_${id}_${span}_01` },
      { traceparent: 'garbage' },
      { traceparent: `00-${id}-${span}-01`, tracestate: 'vendor=x,other=y' },
      { traceparent: `00-${id}-${span}-00`, baggage: 'k=v' },
    ];
    for (const values of cases) {
      const ours = trace.getSpanContext(extractTraceContext(headers(values)));
      const theirs = trace.getSpanContext(w3c.extract(ROOT_CONTEXT, values, defaultTextMapGetter));
      const shape = (sc: typeof ours) => sc && { ...sc, traceState: sc.traceState?.serialize() };
      expect([values, shape(ours)]).toEqual([values, shape(theirs)]);
    }
  });
});
