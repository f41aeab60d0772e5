import { Controller, Injectable, Param, Post, type INestApplication } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createTestSchema, type TestSchema } from '@test/support';
import {
  OutboxHttpExceptionFilter,
  OutboxModule,
  OutboxService,
  OutboxTransactional,
} from '@nest-outbox/outbox';
import { createTables, persistenceImports } from './outbox-test-app';

let db: TestSchema;

@Injectable()
class Orders {
  constructor(
    private readonly host: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxService,
  ) {}

  @OutboxTransactional()
  async create(id: string, crash: boolean): Promise<void> {
    await this.host.tx.query(`INSERT INTO "${db.name}".orders (id, status) VALUES ($1, 'p')`, [id]);
    await this.outbox.record({
      eventType: 'order.created',
      aggregateType: 'order',
      aggregateId: id,
      aggregateVersion: 1,
      payload: { id },
    });
    // What a PostgreSQL restart does to every open connection: 57P01 mid-command.
    if (crash) await this.host.tx.query('SELECT pg_terminate_backend(pg_backend_pid())');
  }
}

@Controller('orders')
class OrdersController {
  constructor(private readonly orders: Orders) {}

  @Post(':id')
  create(@Param('id') id: string): Promise<void> {
    return this.orders.create(id, false);
  }

  @Post(':id/during-a-crash')
  createDuringACrash(@Param('id') id: string): Promise<void> {
    return this.orders.create(id, true);
  }
}

const lines: { level: string; message: string }[] = [];
const capture = (level: string) => (message: unknown) =>
  void lines.push({ level, message: String(message) });
let app: INestApplication;
let url: string;

beforeAll(async () => {
  db = await createTestSchema('outbox_http');
  await createTables(db.pool, db.name);
  const moduleRef = await Test.createTestingModule({
    imports: [
      ...persistenceImports(),
      OutboxModule.forRoot({ schema: db.name, tuning: { notifyChannel: false } }),
    ],
    controllers: [OrdersController],
    providers: [Orders, { provide: APP_FILTER, useClass: OutboxHttpExceptionFilter }],
  }).compile();
  app = moduleRef.createNestApplication({
    logger: { log: () => undefined, warn: capture('warn'), error: capture('error') },
  });
  await app.listen(0, '127.0.0.1');
  url = await app.getUrl();
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

beforeEach(() => (lines.length = 0));

const rowsOf = async (id: string) =>
  (await db.pool.query(`SELECT id FROM "${db.name}".orders WHERE id = $1`, [id])).rowCount;

describe('OutboxHttpExceptionFilter on real PostgreSQL', () => {
  it('Given PostgreSQL drops the connection of commands, then each answers 503 database_unavailable with Retry-After, nothing is written, and the log has one warning and no error', async () => {
    for (const id of ['crash-1', 'crash-2']) {
      const response = await fetch(`${url}/orders/${id}/during-a-crash`, { method: 'POST' });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('2');
      expect(await response.json()).toMatchObject({
        error: 'database_unavailable',
        retryable: true,
      });
      expect(await rowsOf(id)).toBe(0);
    }
    expect(lines).toEqual([
      {
        level: 'warn',
        message: expect.stringMatching(
          /^answered 503: database unavailable error_class=OutboxDatabaseUnavailableError reason="\w+ 57P01"$/,
        ),
      },
    ]);
    // The pool replaced the dropped connection: the next command commits.
    expect((await fetch(`${url}/orders/after-crash`, { method: 'POST' })).status).toBe(201);
  });

  it('Given an order id that exists, when it is created again, then it answers 409 conflict naming the constraint, and neither answer nor log carries the id', async () => {
    const id = 'MARKER-dup-4c1d';
    expect((await fetch(`${url}/orders/${id}`, { method: 'POST' })).status).toBe(201);
    const response = await fetch(`${url}/orders/${id}`, { method: 'POST' });
    expect(response.status).toBe(409);
    const body = await response.text();
    expect(JSON.parse(body)).toMatchObject({ error: 'conflict', constraint: 'orders_pkey' });
    expect(body).not.toContain(id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      message: expect.stringContaining('constraint=orders_pkey'),
    });
    expect(lines[0]!.message).not.toContain(id);
    expect(await rowsOf(id)).toBe(1);
  });
});
