import { NestFactory } from '@nestjs/core';
import { Transport } from '@nestjs/microservices';
import { InboxMisuseError } from '@nest-outbox/inbox';
import { createTopics, spawnTs, uniqueTopic } from '@test/support';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { buildAppModule, consumerOptions } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

const USE_INBOX_SERVER =
  'app.connectMicroservice({ strategy: new InboxKafkaServer({...same options...}) })';

describe('InboxModule refuses an inbox handler served by plain ServerKafka (real PostgreSQL + Kafka)', () => {
  const fx = useInboxFixture('inbox_plain');

  /** A topic holding one event, and a group that never consumed it. */
  async function waitingRecord() {
    const topic = uniqueTopic('inbox-plain');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    await send(fx.tools.producer, topic, [eventRecord()]);
    return { topic, groupId, o: { schema: fx.db.name, topics: [topic], groupId } };
  }

  /** Nothing consumed: no effect written, no offset committed, no member in the group. */
  async function expectUntouched(topic: string, groupId: string): Promise<void> {
    const effects = await fx.db.pool.query(`SELECT 1 FROM "${fx.db.name}".effects`);
    expect(effects.rowCount).toBe(0);
    expect((await committedOffsets(fx.tools.admin, groupId, topic)).get(0) ?? -1n).toBe(-1n);
    const { groups } = await fx.tools.admin.describeGroups([groupId]);
    expect(groups[0]?.members ?? []).toEqual([]);
  }

  it('Given transport: Transport.KAFKA, when the app listens and then starts its microservices, then listen() rejects with InboxMisuseError saying to use InboxKafkaServer, and no record is consumed', async () => {
    const { topic, groupId, o } = await waitingRecord();
    const app = await NestFactory.create(buildAppModule(o), { logger: false });
    fx.apps.push(app);
    app.connectMicroservice({ transport: Transport.KAFKA, options: consumerOptions(o) });

    const started = app.listen(0, '127.0.0.1').then(() => app.startAllMicroservices());

    await expect(started).rejects.toThrow(InboxMisuseError);
    await expect(started).rejects.toThrow(`topic(s) '${topic}' is served by ServerKafka`);
    await expect(started).rejects.toThrow(USE_INBOX_SERVER);
    await expectUntouched(topic, groupId);
  });

  it('Given transport: Transport.KAFKA started before listen(), then the process exits with that InboxMisuseError before its consumer subscribes, and no record is consumed', async () => {
    const { topic, groupId } = await waitingRecord();
    const child = spawnTs('libs/inbox/test/inbox-plain-server.entry.ts', {
      INBOX_SCHEMA: fx.db.name,
      INBOX_TOPIC: topic,
      INBOX_GROUP: groupId,
    });
    const code = await new Promise<number | null>((resolve) =>
      child.process.once('exit', (exitCode) => resolve(exitCode)),
    );

    expect(code).not.toBe(0);
    expect(child.output()).toContain('InboxMisuseError');
    expect(child.output()).toContain(USE_INBOX_SERVER);
    expect(child.output()).not.toContain('PLAIN_STARTED');
    await expectUntouched(topic, groupId);
  });
});
