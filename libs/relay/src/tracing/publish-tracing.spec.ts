import { context, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { startTestTracing, type TestTracing } from '@test/support';
import type { PublishRecord } from '../publisher/relay-publisher.interface';
import { tracePublish } from './publish.tracer';
import { guardTraceHeaders } from '../publisher/trace-headers.guard';

const PRODUCING = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const OTHER = '00-11111111111111111111111111111111-2222222222222222-01';

const record = (eventId: string, traceparent?: string): PublishRecord => ({
  topic: 'orders',
  key: 'o-1',
  value: '{}',
  headers: { event_id: eventId, ...(traceparent ? { traceparent } : {}) },
});

describe('relay publish tracing', () => {
  let tracing: TestTracing;
  beforeAll(() => (tracing = startTestTracing()));
  afterAll(() => tracing.stop());
  beforeEach(() => tracing.exporter.reset());

  it('sends inside one PRODUCER span linked to each distinct producing span context', async () => {
    let activeInside: string | undefined;
    const result = await tracePublish(
      [record('e1', PRODUCING), record('e2', PRODUCING), record('e3', OTHER), record('e4')],
      () => {
        activeInside = trace.getActiveSpan()?.spanContext().spanId;
        return Promise.resolve('acked');
      },
    );
    expect(result).toBe('acked');
    const [span] = tracing.spans('send orders');
    expect(span).toBeDefined();
    expect(span!.kind).toBe(SpanKind.PRODUCER);
    expect(span!.spanContext().spanId).toBe(activeInside);
    expect(span!.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.destination.name': 'orders',
      'messaging.batch.message_count': 4,
    });
    expect(span!.links.map((l) => l.context.traceId)).toEqual([
      '0af7651916cd43dd8448eb211c80319c',
      '11111111111111111111111111111111',
    ]);
    expect(span!.links[0]!.attributes).toEqual({ 'messaging.message.id': 'e1' });
  });

  it('marks the span failed with the error class only, and rethrows', async () => {
    const failure = Object.assign(new Error('value 4111-1111 refused'), { name: 'KafkaJSError' });
    await expect(tracePublish([record('e1')], () => Promise.reject(failure))).rejects.toBe(failure);
    const [span] = tracing.spans('send orders');
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'KafkaJSError' });
  });

  it("keeps the event's traceparent when an instrumentation injects its own span into the headers", () => {
    const headers = guardTraceHeaders({ event_id: 'e1', traceparent: PRODUCING });
    const span = trace.getTracer('instrumentation').startSpan('kafkajs send');
    propagation.inject(trace.setSpan(context.active(), span), headers);
    span.end();
    expect(headers.traceparent).toBe(PRODUCING);
    expect(Object.keys(headers)).toEqual(['event_id', 'traceparent']);
    expect(JSON.parse(JSON.stringify(headers))).toEqual({ event_id: 'e1', traceparent: PRODUCING });
  });

  it('leaves headers without a traceparent as they are (an instrumentation may add its own)', () => {
    const headers = { event_id: 'e1' };
    expect(guardTraceHeaders(headers)).toBe(headers);
  });

  it('leaves headers as they are while no propagator writes the trace context (nothing can replace it)', () => {
    const headers = { event_id: 'e1', traceparent: PRODUCING };
    propagation.disable();
    try {
      expect(guardTraceHeaders(headers)).toBe(headers);
    } finally {
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    }
  });
});
