import { EVENT_HEADERS } from '@nest-outbox/core';
import { INBOX_METRICS_REGISTRY, InboxConsumerRegistry } from '@nest-outbox/inbox';
import type { Registry } from 'prom-client';
import type { KafkaContext } from '@nestjs/microservices';
import { getTransactionHostToken, type TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createTopics, uniqueTopic, waitFor } from '@test/support';
import type { Message } from 'kafkajs';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { INBOX_TEST_CLIENTS, startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(120_000);

const MARKER = 'PLANTED-MARKER';
const H = EVENT_HEADERS;

/** `code`: the reason_code of its rejected row; `unrecorded`: no row, the last resort. */
type Case = { name: string; record: Message; code: string };

/** A record whose header `name` is replaced by `value`. */
function withHeader(name: string, value: string, fields = {}, more = {}): Message {
  const record = eventRecord(fields);
  Object.assign(record.headers as Record<string, string>, { [name]: value }, more);
  return record;
}

/** One record per class of hostile input the issue names, and what must become of it. */
function hostileCases(): Case[] {
  const nested = '['.repeat(100_000) + ']'.repeat(100_000);
  return [
    {
      name: 'NUL in event_type',
      record: withHeader(H.eventType, `order\u0000${MARKER}`),
      code: 'invalid_header',
    },
    {
      name: 'NUL in event_id',
      record: withHeader(H.eventId, `\u0000${MARKER}`),
      code: 'invalid_event_id',
    },
    {
      name: 'NUL in aggregate_id',
      record: withHeader(H.aggregateId, `o\u0000${MARKER}`),
      code: 'invalid_header',
    },
    {
      name: 'NUL in another header of a rejected record',
      record: withHeader(
        'tenant',
        `a\u0000b${MARKER}`,
        { eventType: 'order.unknown' },
        { 'nul\u0000name': '["\\ud800"]' },
      ),
      code: 'unknown_event_type',
    },
    {
      name: 'NUL in a payload string (the handler stores it as jsonb)',
      record: eventRecord({ payload: { store: `x\u0000${MARKER}` } }),
      code: 'handler_failed',
    },
    {
      name: 'lone surrogate in a payload string (the handler stores it as jsonb)',
      record: eventRecord({ payload: { store: `x\ud800${MARKER}` } }),
      code: 'handler_failed',
    },
    {
      name: '100,000 levels of nesting',
      record: { ...eventRecord(), value: nested },
      code: 'too_deep',
    },
    {
      name: 'huge header value on a rejected record',
      record: withHeader('tenant', MARKER + 'y'.repeat(300_000), { eventType: 'order.unknown' }),
      code: 'unknown_event_type',
    },
    {
      name: 'newline in header values',
      record: withHeader(H.eventType, `order\nFORGED ${MARKER} level=error`),
      code: 'invalid_header',
    },
    {
      name: 'a PostgreSQL error echoing a value',
      record: eventRecord({ payload: { uuid: `${MARKER}-not-a-uuid` } }),
      code: 'handler_failed',
    },
    {
      name: 'a row PostgreSQL refuses even minimal (last resort)',
      record: eventRecord({ eventType: 'order.refused-everywhere' }),
      code: 'unrecorded',
    },
  ];
}

describe.each(INBOX_TEST_CLIENTS)(
  'InboxModule on %s: every record settles, whatever its bytes (real PostgreSQL + Kafka)',
  (client) => {
    const fx = useInboxFixture(`inbox_hostile_${client}`);
    const output: string[] = [];

    beforeAll(() => {
      for (const stream of [process.stdout, process.stderr]) {
        const write = stream.write.bind(stream);
        jest.spyOn(stream, 'write').mockImplementation(((
          chunk: string | Uint8Array,
          ...rest: never[]
        ) => {
          output.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
          return write(chunk, ...rest);
        }) as typeof stream.write);
      }
    });
    afterAll(() => jest.restoreAllMocks());

    it('Given each class of hostile record followed by a canary, when the consumer reads them, then each is rejected, dead-lettered or (last resort) logged once, every offset is committed and every canary applied', async () => {
      const topic = uniqueTopic(`inbox-hostile-server`);
      const groupId = uniqueTopic('g');
      await createTopics([{ topic, numPartitions: 1 }]);
      const schema = fx.db.name;
      const rejected = `"${schema}".inbox_rejected`;
      // A refusal PostgreSQL makes of the full row and of the minimal row alike: the last resort.
      const cases = hostileCases();
      const records: Message[] = [];
      const canaries: string[] = [];
      for (const c of cases) {
        const canary = eventRecord();
        canaries.push(canary.eventId);
        records.push(c.record, canary);
      }
      const attempts = new Map<string, number>();
      const app = await startInboxApp({
        schema,
        topics: [topic],
        groupId,
        consumer: `hostile-server`,
        logger: ['error', 'warn'],
        client,
        handler: {
          eventTypes: ['order.confirmed', 'order.refused-everywhere'],
          retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 },
        },
        behavior: {
          before: async (event, ctx: KafkaContext) => {
            attempts.set(ctx.getMessage().offset, (attempts.get(ctx.getMessage().offset) ?? 0) + 1);
            const payload = event.payload as { store?: string; uuid?: string };
            const tx =
              app.get<TransactionHost<TransactionalAdapterTypeOrm>>(getTransactionHostToken()).tx;
            if (payload.store !== undefined)
              await tx.query('SELECT $1::jsonb', [JSON.stringify(payload)]);
            if (payload.uuid !== undefined) await tx.query('SELECT $1::uuid', [payload.uuid]);
            if (event.eventType === 'order.refused-everywhere') throw new Error('refused');
          },
        },
      });
      fx.apps.push(app);
      await fx.db.pool.query(
        `ALTER TABLE ${rejected} DROP CONSTRAINT IF EXISTS refuse_everywhere,
         ADD CONSTRAINT refuse_everywhere CHECK (reason NOT LIKE 'handler failed after _ attempt(s): Error%')`,
      );
      await send(fx.tools.producer, topic, records);

      await waitFor(
        `all ${records.length} offsets committed`,
        async () =>
          (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) ===
          BigInt(records.length),
        { timeoutMs: 90_000 },
      );
      const consumer = `hostile-server`;
      const effects = await fx.db.pool.query<{ event_id: string }>(
        `SELECT event_id FROM "${schema}".effects WHERE consumer = $1`,
        [consumer],
      );
      expect(effects.rows.map((r) => r.event_id).sort()).toEqual([...canaries].sort());
      const { rows } = await fx.db.pool.query<{
        kafka_offset: string;
        reason_code: string;
        reason: string;
        event_type: string | null;
        headers: Record<string, string>;
        headers_bytes: Buffer | null;
        value_sha256: Buffer | null;
      }>(`SELECT * FROM ${rejected} WHERE consumer = $1 ORDER BY kafka_offset`, [consumer]);
      const byOffset = new Map(rows.map((r) => [Number(r.kafka_offset), r]));
      cases.forEach((c, i) => {
        const row = byOffset.get(2 * i);
        expect([c.name, row?.reason_code ?? 'unrecorded']).toEqual([c.name, c.code]);
      });
      // Exact evidence kept as bytea; text and jsonb escaped.
      const tenant = byOffset.get(6)!;
      expect(tenant.headers.tenant).toBe(`a\\u0000b${MARKER}`);
      expect(JSON.parse(tenant.headers_bytes!.toString()).tenant).toBe(`a\u0000b${MARKER}`);
      // Nest parses a JSON header value: its first element here, an unpaired surrogate.
      expect(tenant.headers['nul\\u0000name']).toBe('\\ud800');
      expect(JSON.parse(tenant.headers_bytes!.toString())['nul\u0000name']).toBe('\ud800');
      expect(byOffset.get(0)!.event_type).toBe(`order\\u0000${MARKER}`);
      expect(byOffset.get(14)!.headers.tenant!.length).toBeLessThanOrEqual(1000);
      expect(byOffset.get(14)!.value_sha256).toHaveLength(32);
      // Retried by policy, then settled: no redelivery loop (at most one more try, in the chunk
      // that was then rolled back and replayed record by record).
      for (const i of [4, 5, 9, 10]) {
        const tries = attempts.get(String(2 * i)) ?? 0;
        expect([i, tries >= 2 && tries <= 3]).toEqual([i, true]);
      }
      const log = output.join('');
      for (const [i] of cases.entries()) {
        const lines = log
          .split('\n')
          .filter(
            (l) => l.includes(`topic=${topic} `) && new RegExp(`offset=${2 * i}( |$)`).test(l),
          );
        expect([
          i,
          lines.filter((l) => /rejected record|dead-lettered|last-resort/.test(l)).length,
        ]).toEqual([i, 1]);
      }
      expect(log.split('\n').some((l) => l.startsWith('FORGED'))).toBe(false);
      expect(rows.map((r) => r.reason).join('\n')).not.toContain(MARKER);
      expect(log).not.toContain(MARKER);
      const metrics = await app
        .get<Registry>(INBOX_METRICS_REGISTRY)
        .getSingleMetricAsString('nest_outbox_inbox_records_unrecorded_total');
      expect(metrics).toContain(
        `nest_outbox_inbox_records_unrecorded_total{consumer="${consumer}",topic="${topic}",reason="handler_failed"} 1`,
      );
      expect(app.get(InboxConsumerRegistry).snapshots()[0]?.status).toBe('running');
    });
  },
);
