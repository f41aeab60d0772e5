import { execFileSync } from 'node:child_process';
import { DataSource } from 'typeorm';
import { DATABASE_URL, REPO_ROOT, createTestSchema, type TestSchema } from '@test/support';
import { createOutboxMigration } from '@nest-outbox/outbox';
import { InvalidOptionsError } from '@nest-outbox/core';

let db: TestSchema;

async function tableInfo(schema: string, table: string) {
  const columns = await db.pool.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
    [schema, table],
  );
  const indexes = await db.pool.query(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname`,
    [schema, table],
  );
  return {
    columns: (columns.rows as { column_name: string }[]).map((r) => r.column_name),
    indexes: indexes.rows as { indexname: string; indexdef: string }[],
  };
}

beforeAll(async () => {
  db = await createTestSchema('outbox_migration');
});

afterAll(async () => {
  await db?.drop();
});

describe('outbox schema delivery', () => {
  it('Given createOutboxMigration in a TypeORM data source, then running migrations creates the table with its partial index of unpublished rows, and reverting drops it', async () => {
    const migration = createOutboxMigration({ schema: db.name, table: 'events' });
    const dataSource = new DataSource({
      type: 'postgres',
      url: DATABASE_URL,
      migrations: [migration],
      migrationsTableName: `${db.name}_migrations`,
    });
    await dataSource.initialize();
    try {
      const ran = await dataSource.runMigrations();
      expect(ran.map((m) => m.name)).toEqual([expect.stringMatching(/^NestOutbox.*Events\d{13}$/)]);
      const info = await tableInfo(db.name, 'events');
      expect(info.columns).toEqual(
        expect.arrayContaining([
          'id',
          'event_id',
          'event_type',
          'schema_version',
          'aggregate_type',
          'aggregate_id',
          'aggregate_version',
          'occurred_at',
          'payload',
          'headers',
          'topic',
          'published_at',
        ]),
      );
      const pending = info.indexes.find((i) => i.indexname === 'events_pending_idx');
      expect(pending?.indexdef).toMatch(
        /WHERE \(\(published_at IS NULL\) AND \(skipped_at IS NULL\)\)/,
      );
      await dataSource.undoLastMigration();
      expect((await tableInfo(db.name, 'events')).columns).toEqual([]);
    } finally {
      await dataSource.query(`DROP TABLE IF EXISTS "${db.name}_migrations"`);
      await dataSource.destroy();
    }
  });

  it('Given invalid names, then createOutboxMigration refuses them', () => {
    expect(() => createOutboxMigration({ schema: 'x; drop', table: 'events' })).toThrow(
      InvalidOptionsError,
    );
  });

  it('Given `npm run outbox:sql -- --schema s --table t`, then it prints plain SQL that creates the same table', async () => {
    const sql = execFileSync(
      process.execPath,
      [
        '-r',
        'ts-node/register',
        '-r',
        'tsconfig-paths/register',
        'libs/outbox/src/cli/outbox-sql.cli.ts',
        '--schema',
        db.name,
        '--table',
        'cli_events',
      ],
      { cwd: REPO_ROOT, env: { ...process.env, TS_NODE_PROJECT: `${REPO_ROOT}/tsconfig.json` } },
    ).toString();
    expect(sql).toMatch(new RegExp(`CREATE TABLE IF NOT EXISTS "${db.name}"."cli_events"`));
    await db.pool.query(sql);
    const info = await tableInfo(db.name, 'cli_events');
    expect(info.columns).toContain('event_id');
    expect(info.indexes.map((i) => i.indexname)).toContain('cli_events_pending_idx');
  });
});
