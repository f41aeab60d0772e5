import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consumeUntil, waitFor } from '@test/support';
import { SampleSystem } from '../scripts/sample-system';
import type { ReportedSpan } from './tracing/child-tracing';

const SPAN_KIND = { SERVER: 1, PRODUCER: 3, CONSUMER: 4 } as const;

function spansIn(file: string): ReportedSpan[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ReportedSpan);
}

/**
 * One HTTP request's trace, end to end, through the sample system as users run it: both
 * services start with an OpenTelemetry SDK (in-memory exporter) and the HTTP and kafkajs
 * instrumentations registered before they load, over real PostgreSQL and Kafka.
 */
describe('traces end to end: HTTP request -> outbox -> relay -> Kafka -> inbox handler (e2e)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-trace-'));
  const files = { orders: join(dir, 'orders.jsonl'), shipping: join(dir, 'shipping.jsonl') };
  let system: SampleSystem;

  beforeAll(async () => {
    system = await SampleSystem.create({
      prefix: 'e2e_trace',
      entryWrapper: 'test/tracing/traced.entry.ts',
      ordersEnv: { OTEL_SPANS_FILE: files.orders },
      shippingEnv: { OTEL_SPANS_FILE: files.shipping },
    });
    await system.start();
  }, 180_000);

  afterAll(async () => {
    await system?.teardown();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("Given kafkajs instrumented on both sides, when an order is confirmed over HTTP, then the shipping handler's span continues the request's trace", async () => {
    const { body: order } = await system.http.createOrder('trace-alice');
    const traceId = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    const callerSpanId = 'aaaaaaaaaaaaaaaa';
    const confirmed = await fetch(`${system.orders.url}/orders/${order.id}/confirm`, {
      method: 'POST',
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
    });
    expect(confirmed.status).toBe(200);

    // The shipping service's inbox handler span, in the caller's trace.
    const handlerSpan = await waitFor(
      'the inbox handler span of the confirmation',
      () =>
        spansIn(files.shipping).find(
          (s) => s.scope === '@nest-outbox/inbox' && s.traceId === traceId,
        ),
      { timeoutMs: 60_000, intervalMs: 200 },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${system.outputs()}`);
    });
    expect(handlerSpan.kind).toBe(SPAN_KIND.CONSUMER);
    expect(handlerSpan.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.destination.name': system.names.orderTopic,
      'nest_outbox.event_type': 'order.confirmed',
    });

    // Its parent is the order service's HTTP server span, the one active when record() ran.
    const ordersSpans = await waitFor('the order service spans', () => {
      const spans = spansIn(files.orders);
      return spans.some((s) => s.scope === '@nest-outbox/relay' && s.links.length > 0)
        ? spans
        : undefined;
    });
    const serverSpan = ordersSpans.find(
      (s) => s.kind === SPAN_KIND.SERVER && s.traceId === traceId,
    );
    expect(serverSpan).toBeDefined();
    expect(serverSpan!.parentSpanId).toBe(callerSpanId);
    expect(handlerSpan.parentSpanId).toBe(serverSpan!.spanId);

    // The relay's publish span links to it, and kafkajs' own send span nests under the relay's.
    const publishSpan = ordersSpans.find(
      (s) =>
        s.scope === '@nest-outbox/relay' &&
        s.links.some((l) => l.traceId === traceId && l.spanId === serverSpan!.spanId),
    );
    expect(publishSpan).toMatchObject({ kind: SPAN_KIND.PRODUCER });
    const kafkajsSend = ordersSpans.filter(
      (s) =>
        s.scope === '@opentelemetry/instrumentation-kafkajs' &&
        s.parentSpanId === publishSpan!.spanId,
    );
    expect(kafkajsSend.length).toBeGreaterThan(0);

    // On the wire the record still carries the request's context, not kafkajs' send span.
    const records = await consumeUntil([system.names.orderTopic], (r) =>
      r.some((x) => x.key === order.id && x.headers.event_type === 'order.confirmed'),
    );
    const record = records.find(
      (x) => x.key === order.id && x.headers.event_type === 'order.confirmed',
    );
    expect(record!.headers.traceparent).toBe(`00-${traceId}-${serverSpan!.spanId}-01`);
  });
});
