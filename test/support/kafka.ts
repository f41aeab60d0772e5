import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type IHeaders, type ITopicConfig } from 'kafkajs';
import { KAFKA_BROKERS } from './env';
import { waitFor } from './poll';

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

/** A kafkajs client for tests, quiet unless something is really wrong. */
export function testKafka(brokers: string[] = KAFKA_BROKERS): Kafka {
  return new Kafka({ clientId: 'nest-outbox-test', brokers, logLevel: logLevel.NOTHING });
}

/** A topic name no other test file uses. */
export function uniqueTopic(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/**
 * Creates topics and waits until every partition has a leader in the metadata. kafkajs'
 * own `waitForLeaders` retries only LEADER_NOT_AVAILABLE: on a loaded broker the metadata can
 * still answer UNKNOWN_TOPIC_OR_PARTITION right after the creation, which it throws. This polls
 * the metadata with a deadline instead, whatever it answers meanwhile.
 */
export async function createTopics(
  topics: (string | ITopicConfig)[],
  brokers: string[] = KAFKA_BROKERS,
): Promise<void> {
  const configs = topics.map((t) => (typeof t === 'string' ? { topic: t, numPartitions: 3 } : t));
  const admin = testKafka(brokers).admin();
  await admin.connect();
  try {
    await admin.createTopics({ waitForLeaders: false, topics: configs });
    await waitFor(
      `leaders of ${configs.map((c) => c.topic).join(', ')}`,
      async () => {
        try {
          const { topics: found } = await admin.fetchTopicMetadata({
            topics: configs.map((c) => c.topic),
          });
          return configs.every((c) => {
            const partitions = found.find((t) => t.name === c.topic)?.partitions ?? [];
            return (
              partitions.length >= Math.max(1, c.numPartitions ?? 1) &&
              partitions.every((p) => p.leader >= 0)
            );
          });
        } catch {
          return false;
        }
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * Records in `topic` now: the sum over its partitions of high watermark minus low (no
 * control records: nothing here produces transactionally). Read that many with
 * `consumeUntil` to see the whole log, not only until a condition first holds.
 */
export async function topicRecordCount(
  topic: string,
  brokers: string[] = KAFKA_BROKERS,
): Promise<number> {
  const admin = testKafka(brokers).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** One record read back from Kafka, headers decoded to strings. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  timestamp: string;
  headers: Record<string, string>;
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) out[k] = first.toString();
  }
  return out;
}

/**
 * Reads topics from the beginning until `done(records)` holds or the deadline passes.
 * Records come in partition order (per key order is preserved).
 */
export async function consumeUntil(
  topics: string[],
  done: (records: ConsumedRecord[]) => boolean,
  options: { timeoutMs?: number; brokers?: string[] } = {},
): Promise<ConsumedRecord[]> {
  const kafka = testKafka(options.brokers);
  const consumer = kafka.consumer({ groupId: uniqueTopic('reader'), maxWaitTimeInMs: 100 });
  const records: ConsumedRecord[] = [];
  await consumer.connect();
  try {
    for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true });
    let finished!: () => void;
    const isDone = new Promise<void>((resolve) => (finished = resolve));
    await consumer.run({
      autoCommit: false,
      eachMessage: ({ topic, partition, message }) => {
        records.push({
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value: message.value?.toString() ?? null,
          timestamp: message.timestamp,
          headers: decodeHeaders(message.headers),
        });
        if (done(records)) finished();
        return Promise.resolve();
      },
    });
    const timeoutMs = options.timeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([isDone.then(() => 'done' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout' && !done(records)) {
      throw new Error(
        `consumeUntil: condition not met within ${timeoutMs} ms (${records.length} records read)`,
      );
    }
    return records;
  } finally {
    await consumer.disconnect();
  }
}
