/**
 * Inbox benchmark (not a timed test): 50,000 records (10% duplicates) on a 6-partition topic,
 * consumed by one consumer process (this one) applying a simple projection through the
 * inbox. Runs ROUNDS times (default 3) on fresh topics/schemas and reports the median.
 * Last line: {"bench":"inbox","events_per_s":..,"duplicates_absorbed":..,"effects":..,"expected_effects":..}
 */
import 'reflect-metadata';
import { Controller, Inject, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { ClsPluginTransactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { toKafkaHeaders, uuidv7, type EventEnvelope } from '@nest-outbox/core';
import {
  InboxEvent,
  InboxHandler,
  InboxKafkaServer,
  InboxModule,
  INBOX_METRICS_REGISTRY,
} from '@nest-outbox/inbox';
import {
  createTestSchema,
  createTopics,
  DATABASE_URL,
  KAFKA_BROKERS,
  testKafka,
  uniqueTopic,
  waitFor,
} from '@test/support';
import { ClsModule } from 'nestjs-cls';
import type { Message } from 'kafkajs';
import type { Registry } from 'prom-client';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 50_000);
const DUPLICATES = Math.round(TOTAL * 0.1);
const UNIQUE = TOTAL - DUPLICATES;
const PARTITIONS = 6;
const AGGREGATES = 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** `batched` (default): InboxKafkaServer, 100 records per transaction; `plain`: Nest's ServerKafka, one per record. */
const TRANSPORT = process.env.BENCH_TRANSPORT === 'plain' ? 'plain' : 'batched';

function records(): Message[] {
  const versions = new Map<string, number>();
  const unique = Array.from({ length: UNIQUE }, (_, i) => {
    const aggregateId = `order-${i % AGGREGATES}`;
    const version = (versions.get(aggregateId) ?? 0) + 1;
    versions.set(aggregateId, version);
    const eventId = uuidv7();
    return {
      key: aggregateId,
      value: JSON.stringify({ orderId: aggregateId, total: i % 97 }),
      headers: toKafkaHeaders({
        eventId,
        eventType: 'order.confirmed',
        schemaVersion: 1,
        aggregateType: 'order',
        aggregateId,
        aggregateVersion: version,
        occurredAt: new Date(),
        headers: {},
      }),
    };
  });
  // Every 10th record repeats an earlier one (a relay republishing after a crash).
  const out: Message[] = [];
  let dup = 0;
  for (let i = 0; i < UNIQUE; i++) {
    out.push(unique[i]!);
    if (dup < DUPLICATES && i % 9 === 8) {
      out.push(unique[i - ((i * 7) % 9)]!);
      dup++;
    }
  }
  while (dup < DUPLICATES) out.push(unique[dup++ % UNIQUE]!);
  return out;
}

function appModule(schema: string, topic: string) {
  @Controller()
  class ProjectionController {
    constructor(
      @Inject(TransactionHost)
      private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    ) {}

    @EventPattern(topic)
    @InboxHandler('bench-projection', { eventTypes: ['order.confirmed'] })
    async apply(@InboxEvent() event: EventEnvelope<{ total: number }>): Promise<void> {
      await this.txHost.tx.query(
        `INSERT INTO "${schema}".projection (aggregate_id, events, total) VALUES ($1, 1, $2)
         ON CONFLICT (aggregate_id) DO UPDATE SET events = projection.events + 1, total = projection.total + EXCLUDED.total`,
        [event.aggregateId, event.payload.total],
      );
    }
  }

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        url: DATABASE_URL,
        extra: { max: 12 },
        entities: [],
      }),
      ClsModule.forRoot({
        global: true,
        plugins: [
          new ClsPluginTransactional({
            imports: [TypeOrmModule],
            adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
          }),
        ],
      }),
      InboxModule.forRoot({
        kafka: { brokers: KAFKA_BROKERS },
        tables: { schema },
        createSchema: true,
      }),
    ],
    controllers: [ProjectionController],
  })
  class BenchModule {}
  return BenchModule;
}

async function round(
  index: number,
  messages: Message[],
): Promise<{ eps: number; duplicates: number; effects: number }> {
  const db = await createTestSchema('bench_inbox');
  await db.pool.query(
    `CREATE TABLE "${db.name}".projection (aggregate_id text PRIMARY KEY, events bigint NOT NULL, total bigint NOT NULL)`,
  );
  const topic = uniqueTopic('bench-inbox');
  // A busy broker may answer UNKNOWN_TOPIC_OR_PARTITION while the leaders settle: retry a few times.
  await waitFor(
    'the bench topic',
    () => createTopics([{ topic, numPartitions: PARTITIONS }]).then(() => true),
    {
      timeoutMs: 60_000,
      intervalMs: 500,
    },
  );
  const producer = testKafka().producer();
  await producer.connect();
  for (let i = 0; i < messages.length; i += 2000) {
    await producer.send({ topic, acks: -1, messages: messages.slice(i, i + 2000) });
  }
  await producer.disconnect();

  let app: INestApplication | undefined;
  try {
    app = await NestFactory.create(appModule(db.name, topic), { logger: ['error'] });
    const kafkaOptions = {
      client: { clientId: 'bench-inbox', brokers: KAFKA_BROKERS, logLevel: 1 },
      consumer: { groupId: uniqueTopic('bench-g'), maxWaitTimeInMs: 100 },
      subscribe: { fromBeginning: true },
      run: { autoCommit: false, partitionsConsumedConcurrently: PARTITIONS },
      postfixId: '',
    };
    app.connectMicroservice<MicroserviceOptions>(
      TRANSPORT === 'plain'
        ? { transport: Transport.KAFKA, options: kafkaOptions }
        : { strategy: new InboxKafkaServer({ ...kafkaOptions, inboxBatchSize: 100 }) },
    );
    await app.init();
    const registry = app.get<Registry>(INBOX_METRICS_REGISTRY);
    const sum = async (name: string) =>
      ((await registry.getSingleMetric(name)?.get())?.values ?? []).reduce(
        (s, v) => s + v.value,
        0,
      );
    const started = process.hrtime.bigint();
    await app.startAllMicroservices();
    const handled = async () =>
      (await sum('inbox_events_applied_total')) + (await sum('inbox_events_duplicate_total'));
    await waitFor('the first record', async () => (await handled()) > 0, {
      timeoutMs: 120_000,
      intervalMs: 5,
    });
    const firstAt = process.hrtime.bigint();
    const firstCount = await handled();
    await waitFor(
      'every record handled',
      async () =>
        (await sum('inbox_events_applied_total')) + (await sum('inbox_events_duplicate_total')) >=
        TOTAL,
      {
        timeoutMs: 300_000,
        intervalMs: 20,
      },
    );
    const now = process.hrtime.bigint();
    const seconds = Number(now - started) / 1e9;
    const steady = (TOTAL - firstCount) / (Number(now - firstAt) / 1e9);
    console.log(
      `  start-up to first record ${(Number(firstAt - started) / 1e9).toFixed(2)} s; steady ${Math.round(steady)} events/s`,
    );
    const duplicates = await sum('inbox_events_duplicate_total');
    const { rows } = await db.pool.query<{ n: string }>(
      `SELECT coalesce(sum(events), 0) AS n FROM "${db.name}".projection`,
    );
    const effects = Number(rows[0]!.n);
    const eps = TOTAL / seconds;
    console.log(
      `round ${index + 1}: ${TOTAL} records in ${seconds.toFixed(2)} s = ${Math.round(eps)} events/s; duplicates absorbed ${duplicates}; effects ${effects}/${UNIQUE}`,
    );
    return { eps, duplicates, effects };
  } finally {
    await app?.close();
    await db.drop();
    const admin = testKafka().admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
}

async function main(): Promise<void> {
  const messages = records();
  console.log(
    `inbox bench: ${TOTAL} records (${UNIQUE} unique + ${DUPLICATES} duplicates), ${PARTITIONS} partitions, ${AGGREGATES} aggregates, ${ROUNDS} round(s), partitionsConsumedConcurrently=${PARTITIONS}, transport=${TRANSPORT}`,
  );
  const results = [];
  for (let i = 0; i < ROUNDS; i++) results.push(await round(i, messages));
  const sorted = [...results].sort((a, b) => a.eps - b.eps);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `median ${Math.round(median.eps)} events/s (min ${Math.round(sorted[0]!.eps)}, max ${Math.round(sorted[sorted.length - 1]!.eps)}); target >= 2000: ${median.eps >= 2000 ? 'met' : 'NOT met'}`,
  );
  console.log(
    JSON.stringify({
      bench: 'inbox',
      events_per_s: Math.round(median.eps),
      duplicates_absorbed: median.duplicates,
      effects: median.effects,
      expected_effects: UNIQUE,
    }),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
