import type { INestApplication } from '@nestjs/common';
import { InboxConsumerRegistry } from '@nest-outbox/inbox';
import { InboxHealthIndicator } from '@nest-outbox/inbox/health';
import { createTopics, uniqueTopic } from '@test/support';
import type { Consumer } from 'kafkajs';
import { useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';

jest.setTimeout(90_000);

function consumerOf(app: INestApplication): Consumer {
  return app.getMicroservices()[0]!.unwrap<[unknown, Consumer, unknown]>()[1];
}

describe('InboxModule attaches its Kafka microservice at start (real PostgreSQL + Kafka)', () => {
  const fx = useInboxFixture('inbox_attach');

  it('reports the inbox up on a quiet topic before any record, with no attach call', async () => {
    const topic = uniqueTopic('inbox-quiet');
    await createTopics([{ topic, numPartitions: 1 }]);
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId: uniqueTopic('g'),
    });
    fx.apps.push(app);
    const health = app.get(InboxHealthIndicator).isHealthy('inbox');
    expect(health.inbox.status).toBe('up');
    const sessions = app.get(InboxConsumerRegistry).snapshots();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.status).toBe('running');
  });

  it('attaches each application to its own consumer when two share a process and a topic', async () => {
    const topic = uniqueTopic('inbox-shared');
    await createTopics([{ topic, numPartitions: 2 }]);
    const groupId = uniqueTopic('g');
    const first = await startInboxApp({ schema: fx.db.name, topics: [topic], groupId });
    fx.apps.push(first);
    const second = await startInboxApp({ schema: fx.db.name, topics: [topic], groupId });
    fx.apps.push(second);
    for (const app of [first, second]) {
      const registry = app.get(InboxConsumerRegistry);
      expect(registry.snapshots()).toHaveLength(1);
      // The session is the app's own: attaching its consumer again adds none.
      registry.attach(consumerOf(app));
      expect(registry.snapshots()).toHaveLength(1);
    }
  });
});
