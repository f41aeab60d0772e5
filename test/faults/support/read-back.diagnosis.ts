import type { KafkaCluster } from '@test/support';
import type { TopicReader } from '../../../scripts/chaos/topic-reader';
import type { RelayScene } from '../../../libs/relay/test/relay-test.fixture';
import type { RecordingPublisher } from '../../../libs/relay/test/recording.publisher';

/** Events explained one by one; the rest are named only. */
const EXPLAINED = 20;

/**
 * Each event the reader did not find in `topic`, with what tells a stalled reader from a lost
 * record: whether the relay marked it published and at which partition/offset, in how many
 * publish calls it was (and how many failed), what the reader found at that offset, and how far
 * the reader got in that partition against its end offset, leader and in-sync replicas. A
 * marked event missing from a partition read to its end was acknowledged and then lost.
 */
export async function explainMissing(
  missing: readonly string[],
  scene: RelayScene,
  cluster: KafkaCluster,
  topic: string,
  reader: TopicReader,
  recording: RecordingPublisher,
): Promise<string[]> {
  if (missing.length === 0) return [];
  const { rows } = await scene.schema.pool.query<{
    id: string;
    p: number | null;
    o: string | null;
  }>(
    `SELECT event_id::text AS id, kafka_partition AS p, kafka_offset::text AS o
       FROM "${scene.schema.name}".outbox
      WHERE published_at IS NOT NULL AND event_id::text = ANY($1::text[])`,
    [missing.slice(0, EXPLAINED)],
  );
  const marks = new Map(rows.map((r) => [r.id, r]));
  const admin = cluster.kafka().admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
  const states = await cluster.partitions(topic);
  const partitions = reader.partitions(topic);
  const partition = (p: number) => {
    const end = ends.find((e) => e.partition === p)?.high ?? '?';
    const state = states.find((s) => s.partition === p);
    const read = reader.positions(topic).get(p) ?? 0;
    return `partition ${p} read to ${read} of ${end}, leader ${state?.leader} isr ${state?.isr.join(',')}`;
  };
  return missing.map((id, i) => {
    if (i >= EXPLAINED) return id;
    const calls = recording.attempts.filter((a) => a.eventIds.includes(id));
    const failed = calls.filter((a) => a.error !== undefined).length;
    const mark = marks.get(id);
    if (!mark || mark.p === null)
      return `${id} (not marked; ${calls.length} publish calls, ${failed} failed)`;
    const there = partitions.get(mark.p)?.find((r) => r.offset === Number(mark.o));
    return (
      `${id} (marked at ${mark.p}/${mark.o}; ${calls.length} publish calls, ${failed} failed; ` +
      `read there: ${there ? there.eventId : 'nothing'}; ${partition(mark.p)})`
    );
  });
}
