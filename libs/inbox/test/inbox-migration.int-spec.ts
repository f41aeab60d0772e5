import { DataSource } from 'typeorm';
import { DATABASE_URL, createTestSchema, type TestSchema } from '@test/support';
import { InvalidOptionsError } from '@nest-outbox/core';
import { createInboxMigration } from '@nest-outbox/inbox';

const pascal = (name: string) =>
  name.replace(/(^|_)([a-z0-9])/g, (_: string, __: string, c: string) => c.toUpperCase());

describe('createInboxMigration (real PostgreSQL + TypeORM)', () => {
  const schemas: TestSchema[] = [];

  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
  });

  async function tables(schema: string): Promise<string[]> {
    const { rows } = await schemas[0]!.pool.query<{ tablename: string }>(
      'SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename',
      [schema],
    );
    return rows.map((r) => r.tablename);
  }

  it('Given the inbox migrations of two schemas with one timestamp in one data source, then both run under names of their own, and reverting the last one drops only its tables', async () => {
    const [a, b] = [await createTestSchema('inbox_mig_a'), await createTestSchema('inbox_mig_b')];
    schemas.push(a, b);
    const migrations = [
      createInboxMigration({ schema: a.name, timestamp: 1767225600005 }),
      createInboxMigration({
        schema: b.name,
        table: 'processed',
        rejectedTable: 'refused',
        versionsTable: 'versions',
        timestamp: 1767225600005,
      }),
    ];
    const dataSource = new DataSource({
      type: 'postgres',
      url: DATABASE_URL,
      migrations,
      migrationsTableName: `${a.name}_migrations`,
      extra: { max: 2 },
    });
    await dataSource.initialize();
    try {
      const ran = await dataSource.runMigrations();
      expect(ran.map((m) => m.name).sort()).toEqual(
        [
          `NestOutboxInbox${pascal(a.name)}Inbox1767225600005`,
          `NestOutboxInbox${pascal(b.name)}Processed1767225600005`,
        ].sort(),
      );
      expect(await tables(a.name)).toEqual(['inbox', 'inbox_aggregate_versions', 'inbox_rejected']);
      expect(await tables(b.name)).toEqual(['processed', 'refused', 'versions']);

      await dataSource.undoLastMigration();
      const [reverted, kept] = ran[ran.length - 1]!.name.includes(pascal(b.name)) ? [b, a] : [a, b];
      expect(await tables(reverted.name)).toEqual([]);
      expect(await tables(kept.name)).toHaveLength(3);
    } finally {
      await dataSource.query(`DROP TABLE IF EXISTS "${a.name}_migrations"`);
      await dataSource.destroy();
    }
  });

  it('Given names that are not plain SQL identifiers or a timestamp that is not 13 digits, then createInboxMigration refuses them', () => {
    expect(() => createInboxMigration({ schema: 'x; drop' })).toThrow(InvalidOptionsError);
    expect(() => createInboxMigration({ rejectedTable: 'Bad Name' })).toThrow(InvalidOptionsError);
    expect(() => createInboxMigration({ schema: 'app', timestamp: 42 })).toThrow(
      /option "timestamp" must be a 13-digit millisecond timestamp/,
    );
  });
});
