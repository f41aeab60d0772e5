import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

/** An OpenTelemetry SDK registered globally for one test file, exporting to memory. */
export interface TestTracing {
  readonly exporter: InMemorySpanExporter;
  readonly provider: BasicTracerProvider;
  /** Finished spans named `name`. */
  spans(name?: string | RegExp): ReadableSpan[];
  /** Unregisters the SDK (tracer provider, context manager, propagator). */
  stop(): Promise<void>;
}

/**
 * Registers a tracer provider with an in-memory exporter, the AsyncLocalStorage context
 * manager and the W3C propagator, the way an application's tracing set-up does.
 */
export function startTestTracing(): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    exporter,
    provider,
    spans: (name) =>
      exporter
        .getFinishedSpans()
        .filter((s) =>
          name === undefined
            ? true
            : typeof name === 'string'
              ? s.name === name
              : name.test(s.name),
        ),
    stop: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
