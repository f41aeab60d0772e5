import { consumeUntil, testKafka, uniqueTopic, waitFor } from '@test/support';
import { ConfigResourceTypes } from 'kafkajs';
import { RelayLoop } from '../src/loop/relay.loop';
import { RelayOperatorService } from '../src/operator/relay-operator.service';
import { useRelayFixture } from './relay-test.fixture';

interface Row {
  event_id: string;
  published_at: Date | null;
  parked_at: Date | null;
  parked_reason: string | null;
  skipped_at: Date | null;
}

describe('Poison events are parked, block only their own aggregate, and operators retry or skip them (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-poison');
  const fixture = useRelayFixture('relay_poison', {
    topics: [
      { topic, numPartitions: 2, configEntries: [{ name: 'max.message.bytes', value: '3000' }] },
    ],
  });

  const row = async (eventId: string): Promise<Row> =>
    (
      await fixture.scene.schema.pool.query<Row>(
        `SELECT event_id, published_at, parked_at, parked_reason, skipped_at FROM "${fixture.scene.schema.name}".outbox WHERE event_id = $1`,
        [eventId],
      )
    ).rows[0]!;

  it("Given an oversize and an unknown-topic event, then both are parked with their reasons while other aggregates flow, and an operator's retry in place after the fix and skip with a reason both work and are recorded", async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    const [p1, big, p3, p4] = await producer.write([
      { aggregateId: 'poison' },
      { aggregateId: 'poison', payload: { blob: 'x'.repeat(6000) } },
      { aggregateId: 'poison' },
      { aggregateId: 'poison' },
    ]);
    const [lost, lostNext] = await producer.write([
      { aggregateId: 'lost', topic: 'no-such-topic-nest-outbox' },
      { aggregateId: 'lost' },
    ]);
    await producer.writeMany(200, 10, 20, 'ok');
    const relay = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { batchSize: 100, maxRequestBytes: 2500 },
    });
    const loop = relay.get(RelayLoop);

    await waitFor(
      'both poison events parked',
      async () => (await row(big!)).parked_at !== null && (await row(lost!)).parked_at !== null,
      {
        timeoutMs: 30_000,
      },
    );
    expect((await row(big!)).parked_reason).toMatch(/^permanent: .*MESSAGE_TOO_LARGE/);
    expect((await row(lost!)).parked_reason).toMatch(
      /^permanent: .*UNKNOWN_TOPIC_OR_PARTITION|not.*topic/i,
    );
    expect((await row(p1!)).published_at).not.toBeNull();

    // Other aggregates keep flowing, now and later.
    const later = await producer.write([{ aggregateId: 'ok1' }, { aggregateId: 'ok2' }]);
    await waitFor(
      'later events of other aggregates published',
      async () => (await row(later[1]!)).published_at !== null,
    );
    // Its own aggregate waits behind it, unparked and unpublished.
    for (const id of [p3!, p4!, lostNext!]) {
      const r = await row(id);
      expect(r.published_at).toBeNull();
      expect(r.parked_at).toBeNull();
    }

    const operator = relay.get(RelayOperatorService);
    const parked = await operator.listParked();
    expect(parked.map((p) => p.eventId).sort()).toEqual([big!, lost!].sort());
    expect(parked.find((p) => p.eventId === big)!.waiting).toBe(2);
    expect(JSON.stringify(parked)).not.toContain('xxxxxxxx');
    expect(parked.find((p) => p.eventId === big)!.errorHistory.length).toBeGreaterThan(0);
    expect(loop.isRunning).toBe(true);

    // Fix: raise the topic's limit, then retry in place. alterConfigs returns once the
    // controller has the new limit; the broker applies it a moment later (2 of 15 produces
    // right after it were still refused here), and a retry refused as MESSAGE_TOO_LARGE is
    // rightly parked again. So the operator retries once the broker takes records this big.
    const kafka = testKafka();
    const admin = kafka.admin();
    await admin.connect();
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [{ name: 'max.message.bytes', value: '100000' }],
        },
      ],
    });
    await admin.disconnect();
    const probe = kafka.producer();
    await probe.connect();
    await waitFor(
      'the broker to take a record as large as the poison on every partition',
      () =>
        probe
          .send({
            topic,
            acks: -1,
            messages: [0, 1].map((partition) => ({
              partition,
              key: 'probe',
              value: 'x'.repeat(8000), // more than the poison record with its headers
            })),
          })
          .then(() => true),
      { intervalMs: 200 },
    );
    await probe.disconnect();
    await expect(
      operator.retry(big!, { actor: 'alice', reason: 'topic limit raised' }),
    ).resolves.toEqual({ outcome: 'retried', eventId: big });
    await expect(operator.retry(p1!, { actor: 'alice' })).resolves.toEqual({
      outcome: 'not-parked',
      eventId: p1,
    });
    await waitFor(
      'retried event and its followers published',
      async () => (await row(p4!)).published_at !== null,
      { timeoutMs: 30_000 },
    );

    await expect(operator.skip(lost!, { actor: 'bob' })).rejects.toThrow(/reason.*is required/);
    await expect(operator.skip(lost!, { actor: 'bob', reason: 'topic retired' })).resolves.toEqual({
      outcome: 'skipped',
      eventId: lost,
    });
    await waitFor(
      'follower of the skipped event published',
      async () => (await row(lostNext!)).published_at !== null,
    );
    const skipped = await schema.pool.query(
      `SELECT skipped_by, skip_reason FROM "${schema.name}".outbox WHERE event_id = $1`,
      [lost],
    );
    expect(skipped.rows[0]).toEqual({ skipped_by: 'bob', skip_reason: 'topic retired' });
    const audit = await schema.pool.query(
      `SELECT action, actor, reason, event_id FROM "${schema.name}".outbox_relay_audit ORDER BY id`,
    );
    expect(audit.rows).toEqual([
      { action: 'retry', actor: 'alice', reason: 'topic limit raised', event_id: big },
      { action: 'retry', actor: 'alice', reason: null, event_id: p1 },
      { action: 'skip', actor: 'bob', reason: 'topic retired', event_id: lost },
    ]);

    const records = await consumeUntil([topic], (r) => r.some((x) => x.headers.event_id === p4));
    const poison = records
      .filter((r) => r.key === 'poison')
      .map((r) => Number(r.headers.aggregate_version));
    expect([...new Set(poison)]).toEqual([1, 2, 3, 4]);
    expect(records.some((r) => r.headers.event_id === lost)).toBe(false);
  });
});
