import { context, trace, TraceFlags } from '@opentelemetry/api';
import { startTestTracing, type TestTracing } from '@test/support';
import type * as OtelApiModule from './otel-api';
import type * as TraceContextModule from './w3c-trace-context';
import { activeTraceHeaders, formatTraceHeaders, parseTraceHeaders } from './w3c-trace-context';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';

describe('W3C trace context headers', () => {
  it('formats a sampled span context as a version-00 traceparent, with its tracestate', () => {
    const parsed = parseTraceHeaders(`00-${TRACE_ID}-${SPAN_ID}-01`, 'vendor=a1,other=b2');
    expect(parsed).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 });
    expect(formatTraceHeaders(parsed!)).toEqual({
      traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`,
      tracestate: 'vendor=a1,other=b2',
    });
  });

  it.each([
    undefined,
    '',
    'garbage',
    `01-${TRACE_ID}-${SPAN_ID}-01`,
    `00-${'0'.repeat(32)}-${SPAN_ID}-01`,
    `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
    `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`,
  ])('ignores a missing or malformed traceparent %p without throwing', (header) => {
    expect(parseTraceHeaders(header, 'x=1')).toBeUndefined();
  });

  it('gives no headers for an invalid span context', () => {
    expect(
      formatTraceHeaders({
        traceId: '0'.repeat(32),
        spanId: SPAN_ID,
        traceFlags: TraceFlags.SAMPLED,
      }),
    ).toBeUndefined();
  });

  describe('with an OpenTelemetry SDK registered', () => {
    let tracing: TestTracing;
    beforeAll(() => (tracing = startTestTracing()));
    afterAll(() => tracing.stop());

    it("gives the active span's context, and none outside any span", () => {
      expect(activeTraceHeaders()).toBeUndefined();
      const span = trace.getTracer('test').startSpan('request');
      const headers = context.with(trace.setSpan(context.active(), span), () =>
        activeTraceHeaders(),
      );
      span.end();
      const { traceId, spanId } = span.spanContext();
      expect(headers).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    });
  });

  it('gives no active headers when @opentelemetry/api is not installed', () => {
    jest.isolateModules(() => {
      jest.doMock('@opentelemetry/api', () => {
        throw new Error("Cannot find module '@opentelemetry/api'");
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const isolated = require('./w3c-trace-context') as typeof TraceContextModule;
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const loader = require('./otel-api') as typeof OtelApiModule;
      expect(loader.otelApi()).toBeUndefined();
      expect(isolated.activeTraceHeaders()).toBeUndefined();
      expect(isolated.parseTraceHeaders(`00-${TRACE_ID}-${SPAN_ID}-01`, 'a=b')).toMatchObject({
        traceId: TRACE_ID,
        traceState: undefined,
      });
    });
    jest.dontMock('@opentelemetry/api');
  });
});
