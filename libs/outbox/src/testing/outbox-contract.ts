import { strict as assert } from 'node:assert';
import type { DataStackFixture } from '@nest-outbox/core/internal';
import { TransactionHost } from '@nestjs-cls/transactional';
import { InvalidTransitionError } from '../errors/invalid-transition.error';
import { NoActiveTransactionError } from '../errors/no-active-transaction.error';
import type { OutboxEventInput } from '../event/outbox-event.interface';
import { OutboxModule } from '../outbox.module';
import { OutboxService } from '../outbox.service';
import { ContractApp, contractSchema, type ContractTestApi } from './contract-app';
import { idempotencyContract } from './idempotency-contract';

const TIMEOUT_MS = 120_000;

/**
 * The outbox's conformance tests for one data stack, on real PostgreSQL: any
 * `DataStackFixture` (and any `sqlExecutor`) must pass them, idempotent commands included. Call it at the top level of a
 * test file; it registers its own `describe` block (jest's or vitest's globals, or `test`).
 * @example
 * ```ts
 * outboxContract({ name: 'prisma', databaseUrl, imports: () => [...], execute: (tx, sql) => (tx as PrismaClient).$executeRawUnsafe(sql) });
 * ```
 * @publicApi
 */
export function outboxContract(
  stack: DataStackFixture,
  test: ContractTestApi = globalThis as unknown as ContractTestApi,
): void {
  const ctx = new ContractApp(stack, contractSchema('outbox', stack));
  const s = ctx.schema;
  let outbox: OutboxService;
  let host: TransactionHost;
  const event = (id: string, type = 'account.changed'): OutboxEventInput<{ id: string }> => ({
    eventType: type,
    aggregateType: 'account',
    aggregateId: id,
    aggregateVersion: 1,
    payload: { id },
  });
  const spec = (id: string, from: string, to: string) => ({ table: `${s}.accounts`, id, from, to });
  const write = (sql: string) => stack.execute(host.tx, sql);
  const events = (id: string) =>
    ctx.rows<{ event_type: string; aggregate_version: string }>(
      `SELECT event_type, aggregate_version::text FROM ${s}.outbox WHERE aggregate_id = '${id}' ORDER BY id`,
    );
  const account = async (id: string) =>
    (
      await ctx.rows<{ status: string; balance: number }>(
        `SELECT status, balance FROM ${s}.accounts WHERE id = '${id}'`,
      )
    )[0];

  test.describe(`outbox contract on ${stack.name}`, () => {
    test.beforeAll(async () => {
      const ids = ['c1', 'r1', 't1', 'o1', 'o2', 'hot'].map((id) => `('${id}')`).join(', ');
      await ctx.start(
        `CREATE TABLE ${s}.accounts (id text PRIMARY KEY, status text NOT NULL DEFAULT 'open',
           version bigint NOT NULL DEFAULT 0, balance int NOT NULL DEFAULT 0);
         INSERT INTO ${s}.accounts (id) VALUES ${ids}`,
        [
          OutboxModule.forRoot({
            metrics: false,
            schema: s,
            tuning: { installSchema: true, notifyChannel: false },
          }),
        ],
      );
      outbox = ctx.app.get(OutboxService);
      host = ctx.app.get(TransactionHost);
    }, TIMEOUT_MS);
    test.afterAll(() => ctx.stop(), TIMEOUT_MS);

    test.it('commits the change and its events together', async () => {
      await outbox.transaction(async () => {
        await write(`UPDATE ${s}.accounts SET balance = balance + 5 WHERE id = 'c1'`);
        await outbox.transitionAndRecord(
          spec('c1', 'open', 'active'),
          event('c1', 'account.activated'),
        );
        await outbox.record(event('c1'));
        await outbox.record(event('c1', 'account.noted'));
      });
      assert.deepEqual(await account('c1'), { status: 'active', balance: 5 });
      assert.deepEqual(
        (await events('c1')).map((e) => e.event_type),
        ['account.activated', 'account.changed', 'account.noted'],
      );
    });

    test.it('rolls back the change and its events together', async () => {
      const failure = new Error('command failed after its writes');
      const run = outbox.transaction(async () => {
        await write(`UPDATE ${s}.accounts SET balance = balance + 5 WHERE id = 'r1'`);
        await outbox.transitionAndRecord(
          spec('r1', 'open', 'active'),
          event('r1', 'account.activated'),
        );
        await outbox.record(event('r1'));
        throw failure;
      });
      await assert.rejects(run, (e) => e === failure);
      assert.deepEqual(await account('r1'), { status: 'open', balance: 0 });
      assert.deepEqual(await events('r1'), []);
    });

    test.it(
      'throws NoActiveTransactionError outside a transaction and writes nothing',
      async () => {
        const none = (e: unknown) => e instanceof NoActiveTransactionError;
        await assert.rejects(async () => outbox.record(event('t1')), none);
        await assert.rejects(async () => outbox.transition(spec('t1', 'open', 'active')), none);
        await assert.rejects(
          async () => outbox.transitionAndRecord(spec('t1', 'open', 'active'), event('t1')),
          none,
        );
        assert.deepEqual(await events('t1'), []);
      },
    );

    test.it('records nothing and rolls back when a transition matches 0 rows', async () => {
      for (const step of [
        () => outbox.transition(spec('t1', 'closed', 'active')),
        () => outbox.transitionAndRecord(spec('t1', 'closed', 'active'), event('t1')),
      ]) {
        const run = outbox.transaction(async () => {
          await write(`UPDATE ${s}.accounts SET balance = balance + 1 WHERE id = 't1'`);
          await outbox.record(event('t1', 'account.touched'));
          await step();
        });
        await assert.rejects(run, (e) => e instanceof InvalidTransitionError);
      }
      assert.deepEqual(await account('t1'), { status: 'open', balance: 0 });
      assert.deepEqual(await events('t1'), []);
    });

    test.it(
      "keeps one aggregate's events in commit order when two writers interleave",
      async () => {
        // A writes o1's event and keeps its transaction open; B then records o1's event and must
        // wait for A's commit (else B commits first with the larger id, and a relay ordering by
        // id publishes o1's history backwards).
        let releaseA!: () => void;
        const gate = new Promise<void>((resolve) => (releaseA = resolve));
        let aWrote!: () => void;
        const wrote = new Promise<void>((resolve) => (aWrote = resolve));
        const commits: string[] = [];
        const a = outbox
          .transaction(async () => {
            await outbox.transitionAndRecord(spec('o1', 'open', 'active'), event('o1', 'a'));
            aWrote();
            await gate;
          })
          .then(() => commits.push('a'));
        await wrote;
        const b = outbox
          .transaction(() => outbox.record(event('o1', 'b')))
          .then(() => commits.push('b'));
        await ctx.until('B waits for a lock or has committed', async () => {
          if (commits.includes('b')) return true;
          const waiting = await ctx.rows(
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%${s}%outbox%'`,
          );
          return waiting.length > 0;
        });
        assert.deepEqual(
          commits,
          [],
          'B committed while A, which wrote the same aggregate first, was open',
        );
        releaseA();
        await Promise.all([a, b]);
        assert.deepEqual(commits, ['a', 'b']);
        assert.deepEqual(
          (await events('o1')).map((e) => e.event_type),
          ['a', 'b'],
        );
      },
    );

    test.it(
      "writes one aggregate's events in version order under 8 concurrent writers",
      async () => {
        const writer = async () => {
          for (let i = 0; i < 5; i++) {
            await outbox.transaction(async () => {
              const version = await outbox.transition({
                ...spec('hot', 'open', 'open'),
                from: ['open'],
              });
              await outbox.record({ ...event('hot'), aggregateVersion: version });
            });
          }
        };
        await Promise.all(Array.from({ length: 8 }, writer));
        const versions = (await events('hot')).map((e) => Number(e.aggregate_version));
        assert.deepEqual(
          versions,
          Array.from({ length: 40 }, (_, i) => i + 1),
        );
      },
      TIMEOUT_MS,
    );
  });
  idempotencyContract(stack, test);
}
