import {
  createTopics,
  javaGroupOffsets,
  KAFKA_BROKERS,
  KafkaFetchRewriter,
  replaceBatch,
  uniqueTopic,
  waitFor,
} from '@test/support';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { logLevel, type Admin } from 'kafkajs';
import type { Registry } from 'prom-client';
import { INBOX_METRICS_REGISTRY } from '@nest-outbox/inbox';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(300_000);

/** Samples the group's committed offsets (kafkajs admin) until stopped. */
function sampleCommitted(admin: Admin, groupId: string, topic: string) {
  const samples: Map<number, bigint>[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      samples.push(await committedOffsets(admin, groupId, topic));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    samples,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** The warn and error lines the app logged (its own and kafkajs'). */
function warnings(): LoggerService & { lines: string[] } {
  const lines: string[] = [];
  const text = (m: unknown) => (typeof m === 'string' ? m : JSON.stringify(m));
  const keep = (m: unknown, ...rest: unknown[]) => lines.push([m, ...rest].map(text).join(' '));
  return { lines, log: () => undefined, error: keep, warn: keep };
}

/** The rejected counter's value per reason label. */
async function rejectedByReason(app: INestApplication): Promise<Record<string, number>> {
  const registry = app.get<Registry>(INBOX_METRICS_REGISTRY);
  const metric = registry.getSingleMetric('nest_outbox_inbox_events_rejected_total');
  const values = (await metric?.get())?.values ?? [];
  return Object.fromEntries(values.map((v) => [String(v.labels.reason), v.value]));
}

describe('Offsets the log cannot have (real PostgreSQL + Kafka + a Fetch-rewriting proxy)', () => {
  const fx = useInboxFixture('inbox_offsets');
  let proxy: KafkaFetchRewriter;

  beforeAll(async () => {
    proxy = await KafkaFetchRewriter.start(Number(KAFKA_BROKERS[0]!.split(':')[1]));
  });
  afterAll(() => proxy.close());

  const effects = async () =>
    (
      await fx.db.pool.query<{ event_id: string; kafka_partition: number; kafka_offset: string }>(
        `SELECT event_id, kafka_partition, kafka_offset FROM "${fx.db.name}".effects
          ORDER BY kafka_partition, kafka_offset, event_id`,
      )
    ).rows.map((r) => [r.kafka_partition, Number(r.kafka_offset), r.event_id] as const);

  it('Given a corrupt batch in the middle of a partition claiming offsets past the log end, and one claiming offsets already read, then they are refused, every good record is applied once at its offset and the group commits exactly to the log end, never past it nor back to the start', async () => {
    const topic = uniqueTopic('inbox-offsets');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 3 }]);
    // Three batches of three records per partition: offsets 0-2, 3-5, 6-8.
    const rounds = Array.from({ length: 3 }, () =>
      Array.from({ length: 3 }, () => Array.from({ length: 3 }, () => eventRecord())),
    );
    for (const round of rounds)
      for (const [p, records] of round.entries()) await send(fx.tools.producer, topic, records, p);
    // A batch's base offset is not covered by its CRC: partition 0's middle batch claims
    // 1003-1005 (past the log end, 9), partition 1's claims 0-2 again; partition 2 is left alone.
    const claimed = [1003n, 0n];
    proxy.rewrite = (records, at) =>
      at.topic === topic && at.partition < claimed.length
        ? replaceBatch(records, 3n, (b) => (b.writeBigInt64BE(claimed[at.partition]!, 0), b))
        : records;

    const logs = warnings();
    const committed = sampleCommitted(fx.tools.admin, groupId, topic);
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      brokers: proxy.brokers,
      logger: logs,
    });
    fx.apps.push(app);
    try {
      await waitFor(
        'every partition committed to its log end (9)',
        async () =>
          [...(await committedOffsets(fx.tools.admin, groupId, topic)).values()].filter(
            (o) => o === 9n,
          ).length === 3,
        { timeoutMs: 180_000 },
      );
    } finally {
      await committed.stop();
    }

    // Kafka's own Admin client (what kafka-consumer-groups.sh --describe reads): at the log end.
    expect(await javaGroupOffsets(KAFKA_BROKERS, groupId, topic)).toEqual(
      [0, 1, 2].map((partition) => ({ partition, committed: 9, logEnd: 9 })),
    );
    // Every commit on the way: never past the log end, never backwards.
    for (const partition of [0, 1, 2]) {
      const seen = committed.samples.map((s) => s.get(partition) ?? -1n);
      expect(seen.every((o) => o <= 9n)).toBe(true);
      expect(seen.every((o, i) => i === 0 || o >= seen[i - 1]!)).toBe(true);
    }
    const good = (p: number, ...batches: number[]) =>
      batches.flatMap((b) => rounds[b]![p]!.map((r, i) => [p, b * 3 + i, r.eventId]));
    expect(await effects()).toEqual([...good(0, 0, 2), ...good(1, 0, 2), ...good(2, 0, 1, 2)]);
    const rows = await fx.db.pool.query(
      `SELECT 1 FROM "${fx.db.name}".inbox_rejected WHERE topic = $1`,
      [topic],
    );
    expect(rows.rowCount).toBe(0); // their offsets belong to other records: no row
    expect(await rejectedByReason(app)).toEqual({
      offset_beyond_log_end: 3,
      offset_not_increasing: 3,
    });
    const refused = logs.lines.filter((l) => l.includes('refused records'));
    expect(refused.some((l) => l.includes('offset_beyond_log_end'))).toBe(true);
    expect(refused.some((l) => l.includes('offset_not_increasing'))).toBe(true);
    for (const line of refused) expect(line).not.toMatch(/order-|total/); // positions only
  });

  it('Given a group whose committed offset an older version put past the log end, then the fetch error neither resets it to the start nor replays what it passed: the inbox reads on from the log end', async () => {
    const topic = uniqueTopic('inbox-offsets-past');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const before = Array.from({ length: 3 }, () => eventRecord());
    await send(fx.tools.producer, topic, before, 0);
    await fx.tools.admin.setOffsets({
      groupId,
      topic,
      partitions: [{ partition: 0, offset: '1006' }],
    });

    const logs = warnings();
    const committed = sampleCommitted(fx.tools.admin, groupId, topic);
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      logger: logs,
      kafka: { logLevel: logLevel.WARN },
    });
    fx.apps.push(app);
    await waitFor('the consumer recovered from OffsetOutOfRange', () =>
      logs.lines.some((l) => l.includes('Offset past the log end')),
    );
    const after = Array.from({ length: 3 }, () => eventRecord());
    await send(fx.tools.producer, topic, after, 0);
    try {
      await waitFor(
        'the group committed the new records (6)',
        async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 6n,
        { timeoutMs: 120_000 },
      );
    } finally {
      await committed.stop();
    }

    expect((await effects()).filter(([, , id]) => after.some((r) => r.eventId === id))).toEqual(
      after.map((r, i) => [0, 3 + i, r.eventId]),
    );
    expect((await effects()).some(([, , id]) => before.some((r) => r.eventId === id))).toBe(false);
    const seen = committed.samples.map((s) => s.get(0) ?? -1n);
    expect(seen.every((o) => o === 1006n || (o >= 3n && o <= 6n))).toBe(true);
    expect(logs.lines.some((l) => l.includes('resetting to default offset'))).toBe(false);
    expect(await javaGroupOffsets(KAFKA_BROKERS, groupId, topic)).toEqual([
      { partition: 0, committed: 6, logEnd: 6 },
    ]);
  });
});
