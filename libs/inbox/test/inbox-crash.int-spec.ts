import {
  createTestSchema,
  createTopics,
  spawnTs,
  uniqueTopic,
  waitFor,
  type TestSchema,
  type TsChild,
} from '@test/support';
import { committedOffsets, kafkaTools, send } from './inbox-test.kafka';
import { effectsDdl } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(120_000);

describe('InboxModule crash safety: consumer SIGKILLed between its PostgreSQL commit and its offset commit', () => {
  let db: TestSchema;
  let tools: Awaited<ReturnType<typeof kafkaTools>>;
  const children: TsChild[] = [];

  beforeAll(async () => {
    db = await createTestSchema('inbox_crash');
    await db.pool.query(effectsDdl(db.name));
    tools = await kafkaTools();
  });

  afterAll(async () => {
    for (const child of children) await child.kill();
    await tools?.close();
    await db?.drop();
  });

  /** Starts a consumer armed to SIGKILL itself after its PostgreSQL commit; resolves its exit signal. */
  const runUntilFaultKills = async (env: Record<string, string>) => {
    const doomed = spawnTs('libs/inbox/test/inbox-consumer.entry.ts', {
      ...env,
      INBOX_FAULT: 'kill-after-pg-commit', // the entry's test-only KillAfterCommitMetrics
    });
    children.push(doomed);
    return new Promise<NodeJS.Signals | null>((resolve) =>
      doomed.process.once('exit', (_code, signal) => resolve(signal)),
    );
  };

  const effects = async () =>
    (
      await db.pool.query<{ event_id: string }>(
        `SELECT event_id FROM "${db.name}".effects ORDER BY applied_at`,
      )
    ).rows.map((r) => r.event_id);

  it('redelivers the event after restart and absorbs it: no effect lost or doubled', async () => {
    const topic = uniqueTopic('inbox-crash');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const env = { INBOX_SCHEMA: db.name, INBOX_TOPIC: topic, INBOX_GROUP: groupId };
    const first = eventRecord();
    await send(tools.producer, topic, [first]);

    expect(await runUntilFaultKills(env)).toBe('SIGKILL');
    expect(await effects()).toEqual([first.eventId]); // the effect committed...
    expect((await committedOffsets(tools.admin, groupId, topic)).get(0) ?? -1n).toBe(-1n); // ...its offset did not

    const survivor = spawnTs('libs/inbox/test/inbox-consumer.entry.ts', env);
    children.push(survivor);
    await survivor.waitForOutput('INBOX_READY');
    const second = eventRecord();
    await send(tools.producer, topic, [second]);
    await waitFor(
      'both offsets committed',
      async () => (await committedOffsets(tools.admin, groupId, topic)).get(0) === 2n,
      { timeoutMs: 60_000 },
    );
    expect(await effects()).toEqual([first.eventId, second.eventId]);
    const inbox = await db.pool.query(`SELECT event_id FROM "${db.name}".inbox`);
    expect(inbox.rowCount).toBe(2);
    await survivor.stop();
  });

  it('a chunk registered ahead and committed, then SIGKILLed before its offsets, is redelivered and absorbed whole', async () => {
    const topic = uniqueTopic('inbox-crash-b');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const env = {
      INBOX_SCHEMA: db.name,
      INBOX_TOPIC: topic,
      INBOX_GROUP: groupId,
    };
    // One chunk: the first record teaches the server its handler, the rest is registered ahead.
    const chunk = [eventRecord(), eventRecord(), eventRecord(), eventRecord()];
    await send(tools.producer, topic, chunk);
    const ids = chunk.map((r) => r.eventId);
    const effectsOf = async (wanted: string[]) =>
      (await effects()).filter((id) => wanted.includes(id));

    expect(await runUntilFaultKills(env)).toBe('SIGKILL');
    expect(await effectsOf(ids)).toEqual(ids); // the chunk committed...
    expect((await committedOffsets(tools.admin, groupId, topic)).get(0) ?? -1n).toBe(-1n); // ...no offset did

    const survivor = spawnTs('libs/inbox/test/inbox-consumer.entry.ts', env);
    children.push(survivor);
    await survivor.waitForOutput('INBOX_READY');
    const next = eventRecord();
    await send(tools.producer, topic, [next]);
    await waitFor(
      'every offset committed',
      async () => (await committedOffsets(tools.admin, groupId, topic)).get(0) === 5n,
      { timeoutMs: 60_000 },
    );
    expect(await effectsOf([...ids, next.eventId])).toEqual([...ids, next.eventId]);
    const inbox = await db.pool.query(
      `SELECT event_id FROM "${db.name}".inbox WHERE event_id = ANY($1::uuid[])`,
      [[...ids, next.eventId]],
    );
    expect(inbox.rowCount).toBe(5);
    await survivor.stop();
  });
});
