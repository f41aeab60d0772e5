import { appendFileSync } from 'node:fs';
import { context, propagation, trace, type Link } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

/** A finished span as a child process reports it to the test (one JSON line per span). */
export interface ReportedSpan {
  readonly service: string;
  readonly scope: string;
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly links: { traceId: string; spanId: string }[];
  readonly attributes: Record<string, unknown>;
}

/**
 * The SDK's in-memory exporter, each export also appended to `file` so that the test
 * process can read what its children's spans were.
 */
class ReportingExporter extends InMemorySpanExporter {
  constructor(
    private readonly file: string,
    private readonly service: string,
  ) {
    super();
  }

  override export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    super.export(spans, done);
    const lines = spans.map((s) => JSON.stringify(this.report(s))).join('\n');
    if (lines) appendFileSync(this.file, `${lines}\n`);
  }

  private report(span: ReadableSpan): ReportedSpan {
    return {
      service: this.service,
      scope: span.instrumentationScope.name,
      name: span.name,
      kind: span.kind,
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      parentSpanId: span.parentSpanContext?.spanId,
      links: span.links.map((l: Link) => ({
        traceId: l.context.traceId,
        spanId: l.context.spanId,
      })),
      attributes: { ...span.attributes },
    };
  }
}

/**
 * What an application's tracing set-up does before anything else loads: a tracer provider,
 * the AsyncLocalStorage context manager, the W3C propagator, and the HTTP and kafkajs
 * instrumentations (kafkajs' injects its own span into every produced message's headers).
 */
export function startChildTracing(file: string, service: string): void {
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new ReportingExporter(file, service))],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new HttpInstrumentation(), new KafkaJsInstrumentation()],
  });
}
