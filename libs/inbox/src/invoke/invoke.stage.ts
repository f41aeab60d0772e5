import type { Admission, InboxRoute } from '../chunk/chunk';
import { InboxKafkaContext } from '../chunk/inbox-kafka.context';
import type { InboxMetrics } from '../metrics/inbox.metrics';
import { traceInboxCall } from '../tracing/inbox-trace';

/**
 * Stage 3, in the caller's transaction: calls the route's handler for its new events, in offset
 * order: once per event, or once with all of them for an `@InboxBatchHandler` (its `@Ctx()` and
 * `@Payload()` are then the last one's). A handler error is thrown as is. @internal
 */
export async function invokeRoute(
  route: InboxRoute,
  admissions: readonly Admission[],
  metrics: InboxMetrics,
): Promise<void> {
  const fresh = admissions.filter((a) => a.outcome === 'new');
  if (fresh.length === 0) return;
  if (route.batch) return call(route, fresh, metrics);
  for (const admission of fresh) await call(route, [admission], metrics);
}

async function call(
  route: InboxRoute,
  admitted: readonly Admission[],
  metrics: InboxMetrics,
): Promise<void> {
  const { record } = admitted[admitted.length - 1]!;
  const events = admitted.map((a) => a.event);
  const context = new InboxKafkaContext(record.context, events, route.batch);
  const traced = { consumer: route.consumer, position: record.position };
  const handle = async () => route.invoke(await record.payload(), context);
  const done = metrics.handlerSeconds.startTimer({ consumer: route.consumer });
  try {
    await traceInboxCall(traced, events, route.batch, handle);
  } finally {
    done();
  }
}
