import { randomUUID } from 'node:crypto';
import {
  Body,
  Controller,
  HttpCode,
  Injectable,
  Param,
  Post,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createTestSchema, waitFor, type TestSchema } from '@test/support';
import {
  Idempotent,
  OutboxHttpExceptionFilter,
  OutboxIdempotency,
  OutboxModule,
  OutboxService,
  OutboxTransactional,
} from '@nest-outbox/outbox';
import { createTables, persistenceImports } from './outbox-test-app';
import { latch, type Latch } from './commit-gate';

let db: TestSchema;
/** While set, a placed order waits for it after its insert (its transaction stays open). */
let hold: Latch | undefined;

@Injectable()
class Orders {
  constructor(
    private readonly host: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxService,
  ) {}

  @OutboxTransactional()
  async place(id: string, note: string) {
    await this.host.tx.query(
      `INSERT INTO "${db.name}".orders (id, status, note) VALUES ($1, 'pending', $2)`,
      [id, note],
    );
    await this.record(id, 'order.placed');
    await hold?.promise;
    // Different on every run: a replay that ran again would show it.
    return { id, note, placedAt: new Date(), nonce: randomUUID() };
  }

  @OutboxTransactional()
  async confirm(id: string) {
    const version = await this.outbox.transition({
      table: `${db.name}.orders`,
      id,
      from: 'pending',
      to: 'confirmed',
    });
    await this.record(id, 'order.confirmed', version);
    return { id, status: 'confirmed', version, nonce: randomUUID() };
  }

  private record(id: string, eventType: string, aggregateVersion = 1) {
    return this.outbox.record({
      eventType,
      aggregateType: 'order',
      aggregateId: id,
      aggregateVersion,
      payload: { id },
    });
  }
}

@Controller('orders')
class OrdersController {
  constructor(private readonly orders: Orders) {}

  @Post(':id')
  @Idempotent()
  place(@Param('id') id: string, @Body() body: { note: string }) {
    return this.orders.place(id, body.note);
  }

  @Post(':id/confirm')
  @HttpCode(200)
  @Idempotent()
  confirm(@Param('id') id: string) {
    return this.orders.confirm(id);
  }
}

let app: INestApplication;
let url: string;
const tenantOf = (context: ExecutionContext) =>
  String(context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers.tenant);

beforeAll(async () => {
  db = await createTestSchema('outbox_idem');
  await createTables(db.pool, db.name);
  const moduleRef = await Test.createTestingModule({
    imports: [
      ...persistenceImports(),
      OutboxModule.forRoot({
        schema: db.name,
        idempotency: { scope: tenantOf, retentionMs: 3_600_000 },
        tuning: { notifyChannel: false },
      }),
    ],
    controllers: [OrdersController],
    providers: [Orders, { provide: APP_FILTER, useClass: OutboxHttpExceptionFilter }],
  }).compile();
  app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  url = await app.getUrl();
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

async function post(path: string, key: string | undefined, body: object = {}, tenant = 'acme') {
  const headers: Record<string, string> = { 'content-type': 'application/json', tenant };
  if (key !== undefined) headers['idempotency-key'] = key;
  const response = await fetch(`${url}/orders/${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

/** Orders with `id` (each one effect) and their events (each one event). */
async function written(id: string): Promise<{ orders: number; events: string[] }> {
  const orders = await db.pool.query(`SELECT 1 FROM "${db.name}".orders WHERE id = $1`, [id]);
  const events = await db.pool.query<{ event_type: string }>(
    `SELECT event_type FROM "${db.name}".outbox WHERE aggregate_id = $1 ORDER BY id`,
    [id],
  );
  return { orders: orders.rowCount ?? 0, events: events.rows.map((r) => r.event_type) };
}

describe('@Idempotent() on real PostgreSQL', () => {
  it('Given a command answered with a key, when it is retried with that key after the state moved on, then the first answer comes back byte for byte and nothing runs again', async () => {
    const [id, key] = [randomUUID(), randomUUID()];
    const first = await post(id, key, { note: 'a', tags: [1, 2] });
    expect(first.status).toBe(201);
    expect((await post(`${id}/confirm`, undefined)).status).toBe(200);

    // The same body with its fields in another order is the same request.
    const again = await post(id, `"${key}"`, { tags: [1, 2], note: 'a' });
    expect(again).toEqual(first);
    expect(await written(id)).toEqual({ orders: 1, events: ['order.placed', 'order.confirmed'] });
  });

  it('Given a key already used, when it comes with another body or on another route, then it answers 422 idempotency_key_reused and writes nothing', async () => {
    const [id, key] = [randomUUID(), randomUUID()];
    expect((await post(id, key, { note: 'a' })).status).toBe(201);
    for (const [path, body] of [
      [id, { note: 'b' }],
      [randomUUID(), { note: 'a' }],
    ] as const) {
      const other = await post(path, key, body);
      expect(other.status).toBe(422);
      expect(JSON.parse(other.text)).toMatchObject({ error: 'idempotency_key_reused' });
      expect(other.text).not.toContain(id);
    }
    expect(await written(id)).toEqual({ orders: 1, events: ['order.placed'] });
  });

  it('Given eight concurrent requests with one key, when the first holds its transaction open, then the others wait for it and each answers its answer: one effect, one event', async () => {
    const [id, key] = [randomUUID(), randomUUID()];
    hold = latch();
    const answers = Promise.all(Array.from({ length: 8 }, () => post(id, key, { note: 'race' })));
    await waitFor('seven requests wait for the first one to end', async () => {
      const { rows } = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%${db.name}%outbox_idempotency%'`,
      );
      return rows[0]!.n === 7;
    });
    hold.open();
    hold = undefined;
    const all = await answers;
    expect(all.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(all.map((a) => a.text)).size).toBe(1);
    expect(await written(id)).toEqual({ orders: 1, events: ['order.placed'] });
  });

  it('Given a confirm whose answer was lost, when it is retried with its key, then it answers the first 200 instead of 409; without the key the retry is 409', async () => {
    const [id, key] = [randomUUID(), randomUUID()];
    expect((await post(id, undefined, { note: 'a' })).status).toBe(201);
    const first = await post(`${id}/confirm`, key);
    expect(first.status).toBe(200);
    expect(await post(`${id}/confirm`, key)).toEqual(first);
    expect((await post(`${id}/confirm`, randomUUID())).status).toBe(409);
    expect(await written(id)).toEqual({ orders: 1, events: ['order.placed', 'order.confirmed'] });
  });

  it("Given one key in two tenants' scopes, then each runs its own command, never gets the other's answer, and a 422 says nothing of the other", async () => {
    const [a, b, key] = [randomUUID(), randomUUID(), randomUUID()];
    const acme = await post(a, key, { note: 'acme' }, 'acme');
    const globex = await post(b, key, { note: 'globex' }, 'globex');
    expect([acme.status, globex.status]).toEqual([201, 201]);
    expect(globex.text).not.toContain(a);
    expect(await post(a, key, { note: 'acme' }, 'globex')).toMatchObject({ status: 422 });
    expect(await post(a, key, { note: 'acme' }, 'acme')).toEqual(acme);
    expect(await written(a)).toEqual({ orders: 1, events: ['order.placed'] });
    expect(await written(b)).toEqual({ orders: 1, events: ['order.placed'] });
  });

  it('Given a key that is empty, over 255 characters or not visible ASCII, then it answers 400 idempotency_key_invalid without echoing it, and nothing runs', async () => {
    const id = randomUUID();
    for (const bad of ['""', 'k'.repeat(256), '"clé"', 'two words']) {
      const answer = await post(id, bad, { note: 'a' });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ error: 'idempotency_key_invalid' });
      if (bad.length > 8) expect(answer.text).not.toContain(bad);
    }
    expect(await written(id)).toEqual({ orders: 0, events: [] });
  });

  it('Given keys older than the retention, when the housekeeping runs, then it deletes them and only them, and the old key runs as a new one', async () => {
    const [old, recent, key] = [randomUUID(), randomUUID(), randomUUID()];
    expect((await post(old, key, { note: 'a' })).status).toBe(201);
    expect((await post(recent, randomUUID(), { note: 'a' })).status).toBe(201);
    const table = `"${db.name}".outbox_idempotency`;
    const keys = async () => (await db.pool.query(`SELECT 1 FROM ${table}`)).rowCount;
    const before = await keys();
    await db.pool.query(
      `UPDATE ${table} SET created_at = now() - interval '2 hours' WHERE key = $1`,
      [key],
    );
    expect(await app.get(OutboxIdempotency).deleteExpired()).toBe(1);
    expect(await keys()).toBe(before! - 1);
    await db.pool.query(`DELETE FROM "${db.name}".orders WHERE id = $1`, [old]);
    expect((await post(old, key, { note: 'a' })).status).toBe(201);
    expect((await written(old)).orders).toBe(1);
  });
});
