import { Controller, HttpCode, Post, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createTestSchema, DATABASE_URL, type TestSchema } from '@test/support';
import {
  Idempotent,
  OutboxIdempotency,
  OutboxIdempotencyTableNotFoundError,
  OutboxModule,
  type OutboxTuningOptions,
} from '@nest-outbox/outbox';
import { persistenceImports } from './outbox-test-app';
import { runNestOutbox } from '../src/cli/nest-outbox.commands';
import { schemaParts } from '../src/cli/schema-parts';
import { idempotencySchemaSql } from '../src/idempotency/idempotency.sql';

let db: TestSchema;
let runs = 0;

@Controller('commands')
class CommandsController {
  @Post()
  @HttpCode(200)
  @Idempotent()
  run() {
    runs += 1;
    return { run: runs };
  }
}

const start = async (
  tuning: OutboxTuningOptions = {},
  schema = db.name,
): Promise<INestApplication> => {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ...persistenceImports(),
      OutboxModule.forRoot({ schema, tuning: { notifyChannel: false, ...tuning } }),
    ],
    controllers: [CommandsController],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  // A failed start leaves the connections open: close them before passing the error on.
  await app.listen(0, '127.0.0.1').catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  return app;
};
const post = async (app: INestApplication, key: string) => {
  const response = await fetch(`${await app.getUrl()}/commands`, {
    method: 'POST',
    headers: { 'idempotency-key': key },
  });
  return { status: response.status, body: await response.json() };
};
const migrate = () =>
  runNestOutbox('migrate', { url: DATABASE_URL, schema: db.name }, { out: () => 0, err: () => 0 });

/**
 * A database whose tables an earlier `nest-outbox migrate` (or `createOutboxMigration`)
 * created, before the idempotency keys' table was part of the outbox's schema.
 */
beforeAll(async () => {
  db = await createTestSchema('outbox_idem_old');
  const added = new Set(idempotencySchemaSql(db.name, 'outbox'));
  const earlier = schemaParts(db.name, 'outbox').flatMap((part) => part.up);
  for (const statement of earlier.filter((s) => !added.has(s))) await db.pool.query(statement);
  await db.pool.query(
    `INSERT INTO "${db.name}".outbox (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload)
     VALUES (gen_random_uuid(), 'order.placed', 1, 'order', 'o-1', 1, now(), '{}')`,
  );
});

afterAll(() => db?.drop());

describe('@Idempotent() on a database migrated before its keys had a table', () => {
  it('Given the keys table is missing, then an application with @Idempotent() fails at start-up with OutboxIdempotencyTableNotFoundError saying to run nest-outbox migrate', async () => {
    const failure = await start().then(
      async (app) => {
        await app.close();
        throw new Error('the application started without the keys table');
      },
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(OutboxIdempotencyTableNotFoundError);
    expect((failure as Error).message).toContain(`"${db.name}"."outbox_idempotency"`);
    expect((failure as Error).message).toContain('npx nest-outbox migrate');
  });

  it('Given verifySchema: false, then the first keyed command fails with the typed error, runs nothing, and is not answered 2xx', async () => {
    const app = await start({ verifySchema: false });
    try {
      const command = jest.fn(() => Promise.resolve({ status: 200, body: {} }));
      const run = app
        .get(OutboxIdempotency)
        .run({ scope: '', key: 'k', fingerprint: 'f' }, command);
      await expect(run).rejects.toThrow(OutboxIdempotencyTableNotFoundError);
      expect(command).not.toHaveBeenCalled();
      expect((await post(app, 'k-http')).status).toBe(500);
      expect(runs).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('Given nest-outbox migrate runs again, then it adds the keys table, keeps the outbox rows, and the application starts and replays a retry', async () => {
    await expect(migrate()).resolves.toBe(0);
    const { rows } = await db.pool.query(`SELECT aggregate_id FROM "${db.name}".outbox`);
    expect(rows).toEqual([{ aggregate_id: 'o-1' }]);
    const app = await start();
    try {
      const first = await post(app, 'k-after-migrate');
      expect(first).toEqual({ status: 200, body: { run: 1 } });
      expect(await post(app, 'k-after-migrate')).toEqual(first);
      expect(runs).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('Given installSchema: true on an empty schema, then the keys table exists before @Idempotent() checks it', async () => {
    const empty = `${db.name}_empty`;
    try {
      const app = await start({ installSchema: true }, empty);
      await app.close();
    } finally {
      await db.pool.query(`DROP SCHEMA IF EXISTS "${empty}" CASCADE`);
    }
  });
});
