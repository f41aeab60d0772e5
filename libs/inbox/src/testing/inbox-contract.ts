import { strict as assert } from 'node:assert';
import { Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TransactionHost } from '@nestjs-cls/transactional';
import { uuidv7, type EventEnvelope } from '@nest-outbox/core';
import { type DataStackFixture } from '@nest-outbox/core/internal';
import { Pool } from 'pg';
import { InboxModule } from '../inbox.module';
import { InboxStore } from '../store/inbox.store';

const TIMEOUT_MS = 120_000;
/** The test framework's hooks (jest's and vitest's globals fit). */
interface TestApi {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>, timeoutMs?: number): void;
  beforeAll(fn: () => Promise<void>, timeoutMs?: number): void;
  afterAll(fn: () => Promise<void>, timeoutMs?: number): void;
}

/**
 * The inbox's conformance tests for one data stack, on real PostgreSQL (no Kafka): the
 * inbox row and the handler's effect, written through the stack's own transaction object,
 * commit and roll back together, and a duplicate is absorbed. Call it at the top level of a
 * test file (jest's or vitest's globals, or `test`). @publicApi
 */
export function inboxContract(
  stack: DataStackFixture,
  test: TestApi = globalThis as unknown as TestApi,
): void {
  const s = `contract_inbox_${stack.name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(0, 60);
  const pool = new Pool({ connectionString: stack.databaseUrl, max: 2 });
  let app: INestApplicationContext;
  let store: InboxStore;
  let host: TransactionHost;
  const envelope = (aggregateId: string): EventEnvelope => ({
    eventId: uuidv7(),
    eventType: 'account.credited',
    schemaVersion: 1,
    aggregateType: 'account',
    aggregateId,
    aggregateVersion: 1,
    occurredAt: new Date(),
    payload: {},
    headers: {},
  });
  /** What the inbox does per record: register, and apply the effect only when new. */
  const handle = (event: EventEnvelope, offset: string, fail?: Error) =>
    host.withTransaction(async () => {
      const registered = await store.registerMany('contract', { topic: 't', partition: 0 }, [
        { event, offset },
      ]);
      const fresh = registered.has(event.eventId);
      if (fresh) {
        await stack.execute(
          host.tx,
          `UPDATE ${s}.totals SET n = n + 1 WHERE id = '${event.aggregateId}'`,
        );
      }
      if (fail) throw fail;
      return fresh;
    });
  const state = async (id: string) => {
    const totals = await pool.query(`SELECT n FROM ${s}.totals WHERE id = '${id}'`);
    const inbox = await pool.query(`SELECT 1 FROM ${s}.inbox WHERE aggregate_id = '${id}'`);
    return { effect: (totals.rows[0] as { n: number }).n, inboxRows: inbox.rowCount };
  };

  test.describe(`inbox contract on ${stack.name}`, () => {
    test.beforeAll(async () => {
      await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE; CREATE SCHEMA ${s};
        CREATE TABLE ${s}.totals (id text PRIMARY KEY, n int NOT NULL DEFAULT 0);
        INSERT INTO ${s}.totals (id) VALUES ('a1'), ('a2')`);
      const inbox = InboxModule.forRoot({
        kafka: { brokers: ['127.0.0.1:9092'] },
        metrics: false,
        schema: s,
        tuning: { installSchema: true },
      });
      @Module({ imports: [...(stack.imports() as DynamicModule[]), inbox] })
      class ContractModule {}
      app = await NestFactory.createApplicationContext(ContractModule, { logger: false });
      store = app.get(InboxStore, { strict: false });
      host = app.get(TransactionHost);
    }, TIMEOUT_MS);
    test.afterAll(async () => {
      await app?.close();
      await stack.close?.();
      await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
      await pool.end();
    }, TIMEOUT_MS);

    test.it('commits the inbox row and the effect together, and absorbs a duplicate', async () => {
      const event = envelope('a1');
      assert.equal(await handle(event, '1'), true);
      assert.equal(await handle(event, '2'), false);
      // The chunk form (one statement for many records) absorbs it too, and takes a new one.
      const other = envelope('a1');
      const fresh = await host.withTransaction(() =>
        store.registerMany('contract', { topic: 't', partition: 0 }, [
          { event, offset: '3' },
          { event: other, offset: '4' },
        ]),
      );
      assert.deepEqual([...fresh], [other.eventId]);
      assert.deepEqual(await state('a1'), { effect: 1, inboxRows: 2 });
    });

    test.it(
      'rolls back the inbox row with the effect, so a redelivery applies it once',
      async () => {
        const event = envelope('a2');
        const failure = new Error('handler failed after its write');
        await assert.rejects(handle(event, '1', failure), (e) => e === failure);
        assert.deepEqual(await state('a2'), { effect: 0, inboxRows: 0 });
        assert.equal(await handle(event, '2'), true);
        assert.deepEqual(await state('a2'), { effect: 1, inboxRows: 1 });
      },
    );
  });
}
