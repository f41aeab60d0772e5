import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import type { DataStackFixture } from '@nest-outbox/core/internal';
import { TransactionHost } from '@nestjs-cls/transactional';
import { IdempotencyKeyReusedError } from '../idempotency/idempotency.errors';
import {
  OutboxIdempotency,
  type IdempotentRequest,
} from '../idempotency/outbox-idempotency.service';
import { OutboxModule } from '../outbox.module';
import { OutboxService } from '../outbox.service';
import { ContractApp, contractSchema, type ContractTestApi } from './contract-app';

const TIMEOUT_MS = 120_000;

/**
 * The idempotent commands' conformance tests for one data stack (part of `outboxContract`):
 * the key and the answer commit with the change and its event, through the stack's own
 * transaction. @internal
 */
export function idempotencyContract(stack: DataStackFixture, test: ContractTestApi): void {
  const ctx = new ContractApp(stack, contractSchema('idem', stack));
  const s = ctx.schema;
  let idempotency: OutboxIdempotency;
  let outbox: OutboxService;
  let host: TransactionHost;
  let hold: Promise<void> | undefined;

  /** One effect (a counter row) and one event per run; the answer differs on every run. */
  const command = (id: string) => async () => {
    await stack.execute(host.tx, `INSERT INTO ${s}.effects (id) VALUES ('${id}')`);
    await outbox.record({
      eventType: 'effect.done',
      aggregateType: 'effect',
      aggregateId: id,
      aggregateVersion: 1,
      payload: { id },
    });
    await hold;
    return { status: 201, body: { id, nonce: randomUUID() } };
  };
  const request = (key: string, fingerprint = 'f1', scope = 'tenant-a'): IdempotentRequest => ({
    scope,
    key,
    fingerprint,
  });
  const written = async (id: string) =>
    (
      await ctx.rows<{ effects: number; events: number }>(
        `SELECT (SELECT count(*)::int FROM ${s}.effects WHERE id = '${id}') AS effects,
                (SELECT count(*)::int FROM ${s}.outbox WHERE aggregate_id = '${id}') AS events`,
      )
    )[0];

  test.describe(`idempotent commands on ${stack.name}`, () => {
    test.beforeAll(async () => {
      await ctx.start(`CREATE TABLE ${s}.effects (n serial PRIMARY KEY, id text NOT NULL)`, [
        OutboxModule.forRoot({
          metrics: false,
          schema: s,
          tuning: { installSchema: true, notifyChannel: false },
        }),
      ]);
      idempotency = ctx.app.get(OutboxIdempotency);
      outbox = ctx.app.get(OutboxService);
      host = ctx.app.get(TransactionHost);
    }, TIMEOUT_MS);
    test.afterAll(() => ctx.stop(), TIMEOUT_MS);

    test.it('replays the first answer to a retry, with one effect and one event', async () => {
      const key = randomUUID();
      const first = await idempotency.run(request(key), command(key));
      const again = await idempotency.run(request(key), command(key));
      assert.deepEqual(again, { ...first, replayed: true });
      assert.deepEqual(await written(key), { effects: 1, events: 1 });
    });

    test.it('refuses the key with another fingerprint and runs nothing', async () => {
      const key = randomUUID();
      await idempotency.run(request(key), command(key));
      await assert.rejects(
        idempotency.run(request(key, 'f2'), command(key)),
        (e) => e instanceof IdempotencyKeyReusedError,
      );
      assert.deepEqual(await written(key), { effects: 1, events: 1 });
    });

    test.it('keeps scopes apart: one key in two scopes runs twice', async () => {
      const key = randomUUID();
      await idempotency.run(request(key, 'f1', 'tenant-a'), command(key));
      const b = await idempotency.run(request(key, 'f2', 'tenant-b'), command(key));
      assert.equal(b.replayed, false);
      assert.deepEqual(await written(key), { effects: 2, events: 2 });
    });

    test.it('leaves the key free when the command throws', async () => {
      const key = randomUUID();
      const failure = new Error('command failed after its writes');
      await assert.rejects(
        idempotency.run(request(key), async () => {
          await command(key)();
          throw failure;
        }),
        (e) => e === failure,
      );
      assert.equal((await idempotency.run(request(key), command(key))).replayed, false);
      assert.deepEqual(await written(key), { effects: 1, events: 1 });
    });

    test.it('makes a concurrent run with the key wait, then replay: one effect', async () => {
      const key = randomUUID();
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      const runs = Array.from({ length: 4 }, () => idempotency.run(request(key), command(key)));
      await ctx.until('three runs wait for the first one', async () => {
        const waiting = await ctx.rows(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%${s}%outbox_idempotency%'`,
        );
        return waiting.length === 3;
      });
      release();
      hold = undefined;
      const answers = await Promise.all(runs);
      assert.deepEqual(answers.map((a) => a.replayed).sort(), [false, true, true, true]);
      assert.equal(new Set(answers.map((a) => JSON.stringify(a.body))).size, 1);
      assert.deepEqual(await written(key), { effects: 1, events: 1 });
    });

    test.it('deletes the keys older than the retention, and only them', async () => {
      const [old, recent] = [randomUUID(), randomUUID()];
      await idempotency.run(request(old), command(old));
      await idempotency.run(request(recent), command(recent));
      await ctx.rows(
        `UPDATE ${s}.outbox_idempotency SET created_at = now() - interval '2 days' WHERE key = '${old}'`,
      );
      assert.equal(await idempotency.deleteExpired(), 1);
      const left = await ctx.rows<{ key: string }>(
        `SELECT key FROM ${s}.outbox_idempotency WHERE key IN ('${old}', '${recent}')`,
      );
      assert.deepEqual(left, [{ key: recent }]);
    });
  });
}
