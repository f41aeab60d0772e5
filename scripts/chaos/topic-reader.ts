import { Kafka, logLevel, type Consumer, type IHeaders } from 'kafkajs';

/** One record as the history check needs it (never the payload, but one flag of it). */
export interface ReadRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly version: number;
  /** `order.cancelled`: whether the order had been confirmed (the payload's `wasConfirmed`). */
  readonly wasConfirmed?: boolean;
}

const header = (headers: IHeaders | undefined, name: string): string => {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? '' : first.toString();
};

/**
 * The chaos run's independent reader: a consumer of its own (no group commits matter), from
 * the beginning, keeping every record of the topics in partition order. It survives broker
 * restarts: when kafkajs gives up, a new consumer seeks to where the last one stopped.
 */
export class TopicReader {
  /** topic -> partition -> records in offset order. */
  private readonly records = new Map<string, Map<number, ReadRecord[]>>();
  private consumer: Consumer | undefined;
  private closed = false;
  restarts = 0;

  constructor(
    private readonly brokers: string[],
    private readonly topics: string[],
  ) {
    for (const t of topics) this.records.set(t, new Map());
  }

  async start(): Promise<void> {
    if (this.closed) return; // a restart timer that fires after close() starts nothing
    const kafka = new Kafka({
      clientId: 'chaos-reader',
      brokers: this.brokers,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1000,
      retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 3000 },
    });
    const consumer = kafka.consumer({
      groupId: `chaos-reader-${process.pid}-${Date.now()}-${this.restarts}`,
      maxWaitTimeInMs: 200,
      retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 3000 },
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, (event) => {
      if (this.closed || event.payload.restart) return;
      this.restarts += 1;
      void consumer.disconnect().catch(() => undefined);
      setTimeout(() => void this.start().catch(() => this.retryLater()), 1000);
    });
    await consumer.connect();
    for (const topic of this.topics) await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const list = this.partition(batch.topic, batch.partition);
        for (const m of batch.messages) {
          const offset = Number(m.offset);
          const last = list[list.length - 1];
          if (last && offset <= last.offset) continue; // re-read after a restart
          const eventType = header(m.headers, 'event_type');
          let wasConfirmed: boolean | undefined;
          if (eventType === 'order.cancelled' && m.value) {
            wasConfirmed = (JSON.parse(m.value.toString()) as { wasConfirmed?: boolean })
              .wasConfirmed;
          }
          list.push({
            topic: batch.topic,
            partition: batch.partition,
            offset,
            key: m.key?.toString() ?? '',
            eventId: header(m.headers, 'event_id'),
            eventType,
            version: Number(header(m.headers, 'aggregate_version')),
            wasConfirmed,
          });
        }
        return Promise.resolve();
      },
    });
    // A restarted reader continues where the last one stopped (records are kept in memory).
    for (const [topic, partitions] of this.records) {
      for (const [partition, list] of partitions) {
        const last = list[list.length - 1];
        if (last) consumer.seek({ topic, partition, offset: String(last.offset + 1) });
      }
    }
  }

  private retryLater(): void {
    if (this.closed) return;
    this.restarts += 1;
    setTimeout(() => void this.start().catch(() => this.retryLater()), 2000);
  }

  private partition(topic: string, partition: number): ReadRecord[] {
    const partitions = this.records.get(topic)!;
    let list = partitions.get(partition);
    if (!list) partitions.set(partition, (list = []));
    return list;
  }

  /** Records of `topic`, per partition in offset order. */
  partitions(topic: string): ReadonlyMap<number, readonly ReadRecord[]> {
    return this.records.get(topic)!;
  }

  /** Offset after the last record read, per partition. */
  positions(topic: string): Map<number, number> {
    const out = new Map<number, number>();
    for (const [p, list] of this.records.get(topic)!)
      out.set(p, (list[list.length - 1]?.offset ?? -1) + 1);
    return out;
  }

  /**
   * Replaces the consumer by a new one (in a group of its own) that continues where this one
   * stopped: for a reader whose group coordinator does not settle after broker kills.
   */
  async restart(): Promise<void> {
    if (this.closed) return;
    const old = this.consumer;
    this.consumer = undefined;
    this.restarts += 1;
    await old?.disconnect().catch(() => undefined);
    await this.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.consumer?.disconnect().catch(() => undefined);
  }
}
