import { Kafka, logLevel, type Admin, type KafkaConfig } from 'kafkajs';
import type { InboxMetrics } from '../metrics/inbox.metrics';
import type { PartitionOffsetTracker } from './partition-offset.tracker';

/** The admin calls the lag is read with. */
export type LagAdmin = Pick<Admin, 'fetchOffsets' | 'fetchTopicOffsets'>;

/**
 * The group's lag per partition as the broker's group tool counts it (end offset minus committed
 * offset), read on a timer whatever the consumer's state, so a stopped consumer shows its lag
 * growing. @internal
 */
export class GroupLag {
  constructor(
    private readonly metrics: Pick<InboxMetrics, 'lag' | 'appliedUncommitted'>,
    private readonly group: () => string,
  ) {}

  /** Sets the gauge from the broker; a group not known yet (never joined) is skipped. */
  async refresh(admin: LagAdmin): Promise<void> {
    const group = this.group();
    if (!group) return;
    for (const { topic, partitions } of await admin.fetchOffsets({ groupId: group })) {
      const ends = new Map(
        (await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]),
      );
      for (const { partition, offset } of partitions) {
        const end = ends.get(partition);
        const committed = BigInt(offset);
        if (end === undefined || committed < 0n) continue; // nothing committed: no lag to tell
        const lag = end > committed ? Number(end - committed) : 0;
        this.metrics.lag.set({ group, topic, partition: String(partition) }, lag);
      }
    }
  }

  /** Records finished whose offset is not committed yet, on `tracker`'s partition. */
  uncommitted(tracker: PartitionOffsetTracker): void {
    const group = this.group();
    if (!group) return; // labelled once the session learns its group
    const { topic, partition, uncommitted } = tracker;
    this.metrics.appliedUncommitted.set(
      { group, topic, partition: String(partition) },
      uncommitted,
    );
  }
}

/**
 * Refreshes each of `lags()` every `intervalMs` with one admin client; returns the stop function. @internal
 */
export function pollGroupLag(
  kafka: KafkaConfig,
  lags: () => Iterable<GroupLag>,
  intervalMs = 5_000,
): () => Promise<void> {
  const clientId = `${kafka.clientId ?? 'nest-outbox'}-inbox-lag`;
  // No retries: the next refresh is the retry, and a shutdown never waits behind one.
  const config = { logLevel: logLevel.NOTHING, ...kafka, clientId, retry: { retries: 0 } };
  const admin = new Kafka(config).admin();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => (timer = setTimeout(() => void tick(), intervalMs)).unref();
  const tick = async () => {
    for (const lag of lags())
      if (!stopped)
        await admin
          .connect()
          .then(() => lag.refresh(admin))
          .catch(() => undefined);
    if (stopped) await admin.disconnect().catch(() => undefined);
    else schedule();
  };
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await admin.disconnect().catch(() => undefined);
  };
}
