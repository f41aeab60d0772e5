import { waitFor, type KafkaCluster } from '@test/support';
import type { TopicReader } from '../../../scripts/chaos/topic-reader';

/** A reader that read nothing new for this long is replaced (see `readToEnd`). */
const STALL_MS = 30_000;

/** Each partition's end offset (high watermark) now. */
async function endOffsets(cluster: KafkaCluster, topic: string): Promise<Map<number, number>> {
  const admin = cluster.kafka().admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
  return new Map(ends.map((e) => [e.partition, Number(e.high)]));
}

/**
 * Waits until `reader` has read every partition of `topic` to its end offset and `enough()`
 * holds. The reader is a group consumer of its own: after broker kills on a loaded machine its
 * coordinator can take minutes to settle, and kafkajs can stop fetching without a word. A reader
 * that reads nothing new for 30 s is replaced by a new one (a new group) that continues where it
 * stopped, so the deadline judges the topic, not one consumer's luck.
 * @throws when `timeoutMs` passes first, with each partition's read/end offsets
 */
export async function readToEnd(
  reader: TopicReader,
  cluster: KafkaCluster,
  topic: string,
  options: { enough?: () => boolean; timeoutMs?: number } = {},
): Promise<void> {
  const enough = options.enough ?? (() => true);
  const read = () => [...reader.positions(topic).values()].reduce((s, n) => s + n, 0);
  let ends = new Map<number, number>();
  let lastRead = -1;
  let lastProgress = Date.now();
  try {
    await waitFor(
      `the reader at the end of every partition of ${topic}`,
      async () => {
        const now = read();
        if (now !== lastRead) [lastRead, lastProgress] = [now, Date.now()];
        else if (Date.now() - lastProgress > STALL_MS) {
          await reader.restart();
          lastProgress = Date.now();
        }
        ends = await endOffsets(cluster, topic);
        const at = reader.positions(topic);
        return [...ends].every(([p, end]) => (at.get(p) ?? 0) >= end) && enough();
      },
      { timeoutMs: options.timeoutMs ?? 240_000, intervalMs: 500 },
    );
  } catch (error) {
    const at = reader.positions(topic);
    const behind = [...ends].map(([p, end]) => `${p}: ${at.get(p) ?? 0}/${end}`);
    throw new Error(
      `${(error as Error).message}; reader restarts ${reader.restarts}; per partition read/end: ${behind.join(', ')}`,
    );
  }
}
