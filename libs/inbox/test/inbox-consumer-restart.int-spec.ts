import type { INestApplication } from '@nestjs/common';
import type { ServerKafka } from '@nestjs/microservices';
import { createTopics, uniqueTopic, waitFor } from '@test/support';
import type { Consumer } from 'kafkajs';
import type { Registry } from 'prom-client';
import { INBOX_METRICS_REGISTRY } from '@nest-outbox/inbox';
import { committedOffsets, send } from './inbox-test.kafka';
import { inboxMetric, useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

/** The app's Kafka microservice: its kafkajs consumer and the ServerKafka that runs it. */
function kafkaServer(app: INestApplication): { consumer: Consumer; server: ServerKafka } {
  const microservice = app.getMicroservices()[0]!;
  const [, consumer] = microservice.unwrap<[unknown, Consumer, unknown]>();
  // NestMicroservice keeps its strategy private; the test restarts the consumer through it.
  const server = (microservice as unknown as { serverInstance: ServerKafka }).serverInstance;
  return { consumer, server };
}

describe('InboxModule across a kafkajs consumer stop and start (real PostgreSQL + Kafka)', () => {
  const fx = useInboxFixture('inbox_restart');

  it('commits the offset of a record that finished while kafkajs stopped the consumer once it runs again', async () => {
    const topic = uniqueTopic('inbox-restart');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const events = [eventRecord(), eventRecord(), eventRecord()];
    await send(fx.tools.producer, topic, events);
    const last = events[2]!.eventId;
    let blocked = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      inboxBatchSize: 1,
      behavior: {
        after: async (event) => {
          if (event.eventId !== last || blocked) return;
          blocked = true;
          await released;
        },
      },
    });
    fx.apps.push(app);
    await waitFor('the last record in its handler', () => blocked);

    // kafkajs stops the consumer (as on its way to a restart after a crash) while the last
    // record is still running; the record then commits its effect and its offset commit
    // comes while kafkajs is not running: kafkajs resolves it without sending it.
    const { consumer, server } = kafkaServer(app);
    const stopped = consumer.stop();
    release();
    await stopped;
    expect((await committedOffsets(fx.tools.admin, groupId, topic)).get(0)).toBeLessThan(3n);

    // Started again, it re-reads the last record from the group's committed offset: absorbed,
    // and its offset is committed this time.
    await server.bindEvents(consumer);
    await waitFor(
      'offset 3 committed',
      async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 3n,
    );
    const { rows } = await fx.db.pool.query<{ event_id: string; n: string }>(
      `SELECT event_id, count(*) AS n FROM "${fx.db.name}".effects WHERE event_id = ANY($1::uuid[]) GROUP BY event_id`,
      [events.map((e) => e.eventId)],
    );
    expect(rows.map((r) => [r.event_id, r.n]).sort()).toEqual(
      events.map((e) => [e.eventId, '1']).sort(),
    );
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_applied_total')).toBe(3);
    expect(
      await inboxMetric(app, 'nest_outbox_inbox_events_duplicate_total'),
    ).toBeGreaterThanOrEqual(1);
  });

  it("reports the group's real lag from the broker, group label filled, while the consumer is not running", async () => {
    const topic = uniqueTopic('inbox-lag');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 2 }]);
    await send(fx.tools.producer, topic, [eventRecord(), eventRecord()], 0);
    await send(fx.tools.producer, topic, [eventRecord()], 1);
    const app = await startInboxApp({ schema: fx.db.name, topics: [topic], groupId });
    fx.apps.push(app);
    await waitFor('every record committed', async () => {
      const committed = await committedOffsets(fx.tools.admin, groupId, topic);
      return committed.get(0) === 2n && committed.get(1) === 1n;
    });
    const { consumer } = kafkaServer(app);
    await consumer.stop();
    // Produced while nothing consumes: only the broker knows of them (no fetch, no commit).
    await send(fx.tools.producer, topic, [eventRecord(), eventRecord(), eventRecord()], 0);
    await send(fx.tools.producer, topic, [eventRecord()], 1);
    const registry = app.get<Registry>(INBOX_METRICS_REGISTRY);
    const lag = async () => {
      const values =
        (await registry.getSingleMetric('nest_outbox_inbox_consumer_lag')?.get())?.values ?? [];
      return Object.fromEntries(
        values
          .filter((v) => v.labels.topic === topic)
          .map((v) => [`${v.labels.group}/${v.labels.partition}`, v.value]),
      );
    };
    const expected = { [`${groupId}/0`]: 3, [`${groupId}/1`]: 1 };
    await waitFor("the gauge at the broker's lag", async () =>
      JSON.stringify(await lag()) === JSON.stringify(expected) ? true : undefined,
    );
    expect(await lag()).toEqual(expected);
  });
});
