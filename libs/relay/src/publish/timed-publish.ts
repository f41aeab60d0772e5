import { classifyKafkaError } from '../errors/error-classifier';
import { PublishTimeoutError } from '../errors/publish-timeout.error';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import type { PublishAck, RelayPublisher } from '../publisher/relay-publisher.interface';
import { tracePublish } from '../tracing/publish.tracer';
import type { PlannedItem } from './batch-plan';

/**
 * One publish call of the relay: bounded by `publishTimeoutMs` with a timeout that really
 * cancels (the publisher drops its producer on abort), timed, traced, and kept in the
 * broker-up gauge (1 after an acknowledgement, 0 after a transient failure).
 * @internal
 */
export class TimedPublish {
  constructor(
    private readonly publisher: RelayPublisher,
    private readonly options: Pick<ResolvedRelayOptions, 'publishTimeoutMs'>,
    private readonly metrics: RelayMetrics,
  ) {}

  async send(items: readonly PlannedItem[], shutdown: AbortSignal): Promise<PublishAck[]> {
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new PublishTimeoutError(this.options.publishTimeoutMs)),
      this.options.publishTimeoutMs,
    );
    const stopTimer = this.metrics.publishSeconds.startTimer();
    try {
      const records = items.map((i) => i.record);
      const acks = await tracePublish(records, () =>
        this.publisher.publish(records, AbortSignal.any([timeout.signal, shutdown])),
      );
      this.metrics.brokerUp.set(1);
      return acks;
    } catch (error) {
      if (classifyKafkaError(error) === 'transient') this.metrics.brokerUp.set(0);
      throw error;
    } finally {
      clearTimeout(timer);
      stopTimer();
    }
  }
}
