import { Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { TestingModule } from '@nestjs/testing';
import { Propagation, Transactional, TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { isUuid, OUTBOX_WAKEUP, type OutboxWakeup } from '@nest-outbox/core/internal';
import { createTestSchema, waitFor, type TestSchema } from '@test/support';
import {
  InvalidEventError,
  NoActiveTransactionError,
  OutboxNotInitializedError,
  OutboxService,
  OutboxTransactional,
  PayloadSerializationError,
  PayloadTooLargeError,
  type OutboxTransactionOptions,
  type RecordedEvent,
} from '@nest-outbox/outbox';
import { createOutboxApp, createTables } from './outbox-test-app';

type Host = TransactionHost<TransactionalAdapterTypeOrm>;
let db: TestSchema;
let schema: string;

@Injectable()
class OrderCommands {
  constructor(
    readonly host: TransactionHost,
    readonly outbox: OutboxService,
  ) {}

  private get tx(): Host['tx'] {
    return (this.host as Host).tx;
  }

  async insertOrder(id: string): Promise<void> {
    await this.tx.query(`INSERT INTO "${schema}".orders (id, status) VALUES ($1, 'pending')`, [id]);
  }

  @OutboxTransactional()
  async place(id: string, payload: unknown = { id }, fail?: Error): Promise<RecordedEvent> {
    await this.insertOrder(id);
    const event = await this.outbox.record({
      eventType: 'order.placed',
      aggregateType: 'order',
      aggregateId: id,
      aggregateVersion: 0,
      payload,
    });
    if (fail) throw fail;
    return event;
  }

  @SetMetadata('above', 'kept-above')
  @OutboxTransactional()
  @SetMetadata('below', 'kept-below')
  async placeTwoNested(id: string): Promise<{ outer: string; inner: string }> {
    const outer = await this.txid();
    await this.place(`${id}-a`);
    const inner = await this.placeAndReportTx(`${id}-b`);
    return { outer, inner };
  }

  @OutboxTransactional()
  async placeAndReportTx(id: string): Promise<string> {
    await this.place(id);
    return this.txid();
  }

  @OutboxTransactional()
  async placeWithFailingSavepoint(id: string): Promise<void> {
    await this.place(`${id}-kept`);
    await this.inSavepoint(`${id}-lost`).catch(() => undefined);
  }

  @Transactional(Propagation.Nested)
  async inSavepoint(id: string): Promise<void> {
    await this.place(id);
    throw new Error('savepoint rolls back');
  }

  @Transactional()
  async placeInPlainTransaction(id: string, fail?: Error): Promise<number> {
    await this.insertOrder(id);
    await this.outbox.record({
      eventType: 'order.placed',
      aggregateType: 'order',
      aggregateId: id,
      aggregateVersion: 0,
      payload: { id },
    });
    const visible = await this.tx.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE aggregate_id = $1`,
      [id],
    );
    if (fail) throw fail;
    return visible[0]!.n;
  }

  private async txid(): Promise<string> {
    const rows = await this.tx.query<{ id: string }[]>('SELECT txid_current()::text AS id');
    return rows[0]!.id;
  }
}

class NotAProvider {
  @OutboxTransactional()
  async run(): Promise<void> {}
}

let app: TestingModule;
let commands: OrderCommands;
let outbox: OutboxService;
let signals = 0;

async function outboxRows(aggregateId: string) {
  const { rows } = await db.pool.query(
    `SELECT event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version,
            occurred_at, payload::text AS payload, headers, topic, xmin::text AS xmin
       FROM "${schema}".outbox WHERE aggregate_id LIKE $1 ORDER BY id`,
    [`${aggregateId}%`],
  );
  return rows as Record<string, unknown>[];
}

async function orderRows(id: string) {
  const { rows } = await db.pool.query(
    `SELECT id, xmin::text AS xmin FROM "${schema}".orders WHERE id LIKE $1 ORDER BY id`,
    [`${id}%`],
  );
  return rows as { id: string; xmin: string }[];
}

beforeAll(async () => {
  db = await createTestSchema('outbox_tx');
  schema = db.name;
  await createTables(db.pool, schema);
  app = await createOutboxApp(
    {
      schema,
      tuning: {
        maxPayloadBytes: 1000,
        notifyChannel: false,
        traceContext: () => ({
          traceparent: '00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01',
        }),
      },
    },
    { providers: [OrderCommands] },
  );
  commands = app.get(OrderCommands);
  outbox = app.get(OutboxService);
  app.get<OutboxWakeup>(OUTBOX_WAKEUP).subscribe(() => signals++);
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('@OutboxTransactional()', () => {
  it('Given a decorated command, when it commits, then the state change and its event exist with the contract fields', async () => {
    const payload = { id: 'o1', note: 'caf\u00e9', amount: 12.5, nested: { b: 2, a: 1 } };
    const before = signals;
    const recorded = await commands.place('o1', payload);

    const [row] = await outboxRows('o1');
    expect(await orderRows('o1')).toHaveLength(1);
    expect(isUuid(recorded.eventId)).toBe(true);
    expect(recorded.eventId[14]).toBe('7');
    expect(row).toMatchObject({
      event_id: recorded.eventId,
      event_type: 'order.placed',
      schema_version: 1,
      aggregate_type: 'order',
      aggregate_id: 'o1',
      aggregate_version: '0',
      topic: null,
      payload: JSON.stringify(payload),
      headers: { traceparent: '00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01' },
    });
    expect((row!.occurred_at as Date).getTime()).toBe(recorded.occurredAt.getTime());
    expect(signals).toBe(before + 1);
  });

  it('Given a decorated command that throws after recording, then neither the state change nor the event exists', async () => {
    const before = signals;
    await expect(commands.place('o2', { id: 'o2' }, new Error('business rule'))).rejects.toThrow(
      'business rule',
    );
    expect(await orderRows('o2')).toEqual([]);
    expect(await outboxRows('o2')).toEqual([]);
    expect(signals).toBe(before);
  });

  it('When record() is called with no active transaction, then it throws NoActiveTransactionError and writes nothing', async () => {
    expect(() =>
      outbox.record({
        eventType: 'order.placed',
        aggregateType: 'order',
        aggregateId: 'o3',
        aggregateVersion: 0,
        payload: {},
      }),
    ).toThrow(NoActiveTransactionError);
    await expect(
      outbox.transition({ table: `${schema}.orders`, id: 'o3', from: 'pending', to: 'x' }),
    ).rejects.toThrow(NoActiveTransactionError);
    expect(await outboxRows('o3')).toEqual([]);
  });

  it.each([
    ['a BigInt', { amount: 10n }],
    [
      'a cycle',
      (() => {
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        return cyclic;
      })(),
    ],
    ['no JSON value (a function)', () => 1],
  ])(
    'Given a payload with %s, when recorded, then PayloadSerializationError rolls the business change back',
    async (_name, payload) => {
      const id = `ser-${String(_name).replace(/\W/g, '')}`;
      await expect(commands.place(id, payload)).rejects.toThrow(PayloadSerializationError);
      expect(await orderRows(id)).toEqual([]);
      expect(await outboxRows(id)).toEqual([]);
    },
  );

  it('Given a payload over maxPayloadBytes (counted in UTF-8 bytes), when recorded, then PayloadTooLargeError rolls the business change back', async () => {
    // 400 characters but 1,200 bytes in UTF-8: over the 1,000-byte limit.
    await expect(commands.place('big', { text: '\u20ac'.repeat(400) })).rejects.toThrow(
      PayloadTooLargeError,
    );
    expect(await orderRows('big')).toEqual([]);
    await expect(commands.place('fits', { text: 'x'.repeat(900) })).resolves.toBeDefined();
  });

  it('Given nested decorated calls, then they run in one transaction and commit together', async () => {
    const { outer, inner } = await commands.placeTwoNested('nest');
    expect(inner).toBe(outer);
    const events = await outboxRows('nest');
    const orders = await orderRows('nest');
    expect(events.map((e) => e.aggregate_id)).toEqual(['nest-a', 'nest-b']);
    expect(new Set([...events, ...orders].map((r) => r.xmin))).toEqual(new Set([outer]));
  });

  it('Given a decorated method with other decorators above and below, then their metadata is kept and the method is still the transactional wrapper', async () => {
    const reflector = app.get(Reflector);
    expect(reflector.get('above', OrderCommands.prototype.placeTwoNested)).toBe('kept-above');
    expect(reflector.get('below', OrderCommands.prototype.placeTwoNested)).toBe('kept-below');
    expect(OrderCommands.prototype.placeTwoNested.name).toBe('placeTwoNested');
    // Called outside the application, only the wrapper refuses (the original would run).
    const detached = OrderCommands.prototype.placeTwoNested.bind(undefined);
    await expect(detached('detached')).rejects.toThrow(OutboxNotInitializedError);
    await expect(detached('detached')).rejects.toThrow(
      /placeTwoNested\(\) is decorated with @OutboxTransactional\(\)/,
    );
  });

  it('Given the function form, when fn commits, then its events commit with it; when fn throws, nothing is written', async () => {
    const host = app.get<Host>(TransactionHost);
    await outbox.transaction(async () => {
      await host.tx.query(`INSERT INTO "${schema}".orders (id, status) VALUES ('fn1', 'new')`);
      await outbox.record({
        eventType: 'order.placed',
        aggregateType: 'order',
        aggregateId: 'fn1',
        aggregateVersion: 1,
        payload: [1, 2],
        schemaVersion: 3,
        topic: 'orders.v3',
        correlationId: 'corr-1',
        headers: {
          traceparent: '00-cccccccccccccccccccccccccccccccc-dddddddddddddddd-00',
          tenant: 'acme',
        },
      });
    });
    await expect(
      outbox.transaction(async () => {
        await host.tx.query(`INSERT INTO "${schema}".orders (id, status) VALUES ('fn2', 'new')`);
        await outbox.record({
          eventType: 'x',
          aggregateType: 'order',
          aggregateId: 'fn2',
          aggregateVersion: 1,
          payload: 1,
        });
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(await orderRows('fn')).toEqual([expect.objectContaining({ id: 'fn1' })]);
    expect(await outboxRows('fn')).toEqual([
      expect.objectContaining({
        aggregate_id: 'fn1',
        schema_version: 3,
        topic: 'orders.v3',
        payload: '[1,2]',
        headers: {
          traceparent: '00-cccccccccccccccccccccccccccccccc-dddddddddddddddd-00',
          correlation_id: 'corr-1',
          tenant: 'acme',
        },
      }),
    ]);
  });

  it('Given isolationLevel, then the transaction the outbox opens runs at it; an unknown level is refused', async () => {
    const host = app.get<Host>(TransactionHost);
    const level = () =>
      host.tx
        .query(`SELECT current_setting('transaction_isolation') AS level`)
        .then((rows: { level: string }[]) => rows[0]!.level);
    await expect(outbox.transaction(level, { isolationLevel: 'SERIALIZABLE' })).resolves.toBe(
      'serializable',
    );
    await expect(outbox.transaction(level)).resolves.toBe('read committed');
    const unknown = { isolationLevel: 'SNAPSHOT' } as unknown as OutboxTransactionOptions;
    await expect(outbox.transaction(level, unknown)).rejects.toThrow(
      /option "isolationLevel" must be one of READ UNCOMMITTED, READ COMMITTED/,
    );
  });

  it('Given a header that would override a contract header, then record() throws InvalidEventError', async () => {
    await expect(
      outbox.transaction(() =>
        outbox.record({
          eventType: 'x',
          aggregateType: 'order',
          aggregateId: 'hdr',
          aggregateVersion: 1,
          payload: 1,
          headers: { event_id: 'forged' },
        }),
      ),
    ).rejects.toThrow(InvalidEventError);
    expect(await outboxRows('hdr')).toEqual([]);
  });

  it('Given a plain nestjs-cls transaction, then record() inserts at once in it, and the wake-up comes after its commit', async () => {
    const before = signals;
    await expect(commands.placeInPlainTransaction('plain1')).resolves.toBe(1);
    expect(await outboxRows('plain1')).toHaveLength(1);
    expect(signals).toBe(before + 1);

    await expect(commands.placeInPlainTransaction('plain2', new Error('undo'))).rejects.toThrow();
    expect(await outboxRows('plain2')).toEqual([]);
    expect(await orderRows('plain2')).toEqual([]);
    expect(signals).toBe(before + 1);
  });

  it('Given a savepoint inside a decorated call that rolls back, then only the events recorded inside it are gone', async () => {
    await commands.placeWithFailingSavepoint('sp');
    expect((await outboxRows('sp')).map((e) => e.aggregate_id)).toEqual(['sp-kept']);
    expect((await orderRows('sp')).map((o) => o.id)).toEqual(['sp-kept']);
  });

  it('Given a decorated method on an object Nest does not manage, then the call rejects with OutboxNotInitializedError', async () => {
    await expect(new NotAProvider().run()).rejects.toThrow(OutboxNotInitializedError);
  });

  it('Given an after-commit listener, then the rows are already visible to other connections when it runs', async () => {
    const wakeup = app.get<OutboxWakeup>(OUTBOX_WAKEUP);
    let seen: Promise<number> | undefined;
    const unsubscribe = wakeup.subscribe(() => {
      seen ??= db.pool
        .query(`SELECT count(*)::int AS n FROM "${schema}".outbox WHERE aggregate_id = 'vis'`)
        .then((r) => (r.rows[0] as { n: number }).n);
    });
    await commands.place('vis');
    unsubscribe();
    expect(await waitFor('the listener to run', () => seen)).toBe(1);
  });
});
