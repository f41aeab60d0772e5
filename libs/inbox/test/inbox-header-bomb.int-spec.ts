import {
  createTestSchema,
  createTopics,
  freePort,
  spawnTs,
  uniqueTopic,
  waitFor,
  type TestSchema,
} from '@test/support';
import type { IHeaders } from 'kafkajs';
import { watchHealthOffThread } from '../../../test/support/health-watch.thread';
import { effectsDdl, INBOX_TEST_CLIENTS } from './inbox-test.app';
import { committedOffsets, kafkaTools, send } from './inbox-test.kafka';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(120_000);

/**
 * Bound of every /health probe. The issue asks for 1 s; on the shared 2-core machine at load
 * average 50+ a probe of an idle process took up to ~0.8 s, so 2 s: still 15-70 times less
 * than one bomb blocked the loop before the linear decoder.
 */
const HEALTH_LIMIT_MS = 2000;

/** Headers per bomb: kafkajs 2.2.4 alone needs minutes (146 s for 10,000 here) to decode one. */
const BOMB_HEADERS = 30_000;

/** A valid event record plus `BOMB_HEADERS` distinct junk headers (a few hundred KB). */
function bomb(): ReturnType<typeof eventRecord> {
  const record = eventRecord();
  const headers: IHeaders = { ...record.headers };
  for (let i = 0; i < BOMB_HEADERS; i += 1) headers[`h${i}`] = 'v';
  return { ...record, headers };
}

describe.each(INBOX_TEST_CLIENTS)(
  'Header bombs on %s: records with tens of thousands of headers (real PostgreSQL + Kafka, child process)',
  (client) => {
    let db: TestSchema;
    let tools: Awaited<ReturnType<typeof kafkaTools>>;

    beforeAll(async () => {
      db = await createTestSchema(`inbox_bomb_${client}`);
      await db.pool.query(effectsDdl(db.name));
      tools = await kafkaTools();
    });
    afterAll(async () => {
      await tools?.close();
      await db?.drop();
    });

    const rejected = async () =>
      (
        await db.pool.query<{ kafka_offset: string; reason_code: string }>(
          `SELECT kafka_offset, reason_code FROM "${db.name}".inbox_rejected ORDER BY kafka_offset`,
        )
      ).rows;
    const applied = async () =>
      (
        await db.pool.query<{ event_id: string }>(`SELECT event_id FROM "${db.name}".effects`)
      ).rows.map((r) => r.event_id);

    it('Given header bombs between canaries, then each is rejected without decoding its headers, the member keeps its place, /health answers throughout and SIGTERM stops the consumer at once', async () => {
      const topic = uniqueTopic('inbox-bomb');
      const groupId = uniqueTopic('g');
      await createTopics([{ topic, numPartitions: 1 }]);
      const port = await freePort();
      const healthUrl = `http://127.0.0.1:${port}/health`;
      const child = spawnTs('libs/inbox/test/inbox-consumer.entry.ts', {
        INBOX_SCHEMA: db.name,
        INBOX_TOPIC: topic,
        INBOX_GROUP: groupId,
        INBOX_HTTP_PORT: String(port),
        INBOX_TEST_CLIENT: client,
      });
      try {
        await child.waitForOutput('INBOX_READY', 90_000);
        const first = eventRecord();
        await send(tools.producer, topic, [first]);
        await waitFor('the first canary applied', async () =>
          (await applied()).includes(first.eventId),
        );
        const member = async () => {
          const [group] = (await tools.admin.describeGroups([groupId])).groups;
          return group?.state === 'Stable' && group.members.length === 1
            ? group.members[0]!.memberId
            : undefined;
        };
        const memberBefore = await waitFor('a stable one-member group', member);

        // One answered probe first: the first request of a process is slow for reasons of its own.
        await waitFor(
          'a first /health answer',
          async () => (await fetch(healthUrl)).status === 200,
        );
        const health = watchHealthOffThread([healthUrl], { limitMs: HEALTH_LIMIT_MS });
        const second = eventRecord();
        await send(tools.producer, topic, [bomb(), bomb(), second]);
        await waitFor(
          'offsets committed past both bombs',
          async () => (await committedOffsets(tools.admin, groupId, topic)).get(0) === 4n,
          { timeoutMs: 60_000 },
        );
        const report = await health.stop();
        expect(await applied()).toEqual(expect.arrayContaining([first.eventId, second.eventId]));
        const rows = await rejected();
        expect(rows.map((r) => Number(r.kafka_offset))).toEqual([1, 2]);
        expect(rows.map((r) => r.reason_code)).toEqual(['too_many_headers', 'too_many_headers']);
        expect(await member()).toBe(memberBefore);
        process.stdout.write(
          `header bombs: /health slowest ${report.slowestMs} ms over ${report.probes} probes\n`,
        );
        expect(report.failures).toEqual([]);
        expect(report.probes).toBeGreaterThan(0);

        // SIGTERM with more bombs arriving: a graceful exit, not minutes in a decoder.
        await send(tools.producer, topic, [bomb(), bomb(), bomb(), eventRecord()]);
        const stopping = performance.now();
        const code = await child.stop(20_000);
        // Nest's shutdown hook closes the app, then re-raises SIGTERM: either way, not SIGKILL.
        const exit = code ?? child.process.signalCode;
        expect({ exit, within20s: performance.now() - stopping < 20_000 }).toEqual({
          exit: code === 0 ? 0 : 'SIGTERM',
          within20s: true,
        });
      } finally {
        await child.kill();
      }
      expect(child.output()).not.toContain('Maximum call stack');
      expect(child.output()).not.toContain(`h${BOMB_HEADERS - 1}`); // no junk header decoded or logged
    });
  },
);
