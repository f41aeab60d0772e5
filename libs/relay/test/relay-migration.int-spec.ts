import { DataSource } from 'typeorm';
import { DATABASE_URL, createTestSchema, type TestSchema } from '@test/support';
import { createOutboxMigration } from '@nest-outbox/outbox';
import { InvalidOptionsError } from '@nest-outbox/core';
import { createRelayMigration } from '@nest-outbox/relay';

describe('createRelayMigration (real PostgreSQL + TypeORM)', () => {
  const schemas: TestSchema[] = [];

  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
  });

  async function relations(schema: string): Promise<string[]> {
    const { rows } = await schemas[0]!.pool.query<{ relname: string }>(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 ORDER BY c.relname`,
      [schema],
    );
    return rows.map((r) => r.relname).filter((name) => !name.endsWith('_seq'));
  }

  it('Given the outbox and relay migrations of two schemas in one data source, then they run as four migrations, and reverting the last one drops only its relay objects', async () => {
    const [a, b] = [await createTestSchema('relay_mig_a'), await createTestSchema('relay_mig_b')];
    schemas.push(a, b);
    const migrations = [a, b].flatMap(({ name }) => [
      createOutboxMigration({ schema: name, table: 'outbox', timestamp: 1767225600002 }),
      createRelayMigration({ schema: name, table: 'outbox', timestamp: 1767225600003 }),
    ]);
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
      expect(ran).toHaveLength(4);
      expect(new Set(ran.map((m) => m.name)).size).toBe(4);
      expect(ran.map((m) => m.name)).toContain(
        `NestOutboxRelay${a.name.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase())}Outbox1767225600003`,
      );
      for (const { name } of [a, b])
        expect(await relations(name)).toEqual(
          expect.arrayContaining([
            'outbox',
            'outbox_archive',
            'outbox_pressure',
            'outbox_relay_audit',
            'outbox_relay_audit_event_idx',
            'outbox_relay_claim_idx',
          ]),
        );

      await dataSource.undoLastMigration(); // the relay objects of schema b
      expect(await relations(b.name)).toEqual(
        expect.not.arrayContaining([
          'outbox_archive',
          'outbox_pressure',
          'outbox_relay_audit',
          'outbox_relay_claim_idx',
        ]),
      );
      expect(await relations(b.name)).toContain('outbox');
      expect(await relations(a.name)).toContain('outbox_relay_audit');
    } finally {
      await dataSource.query(`DROP TABLE IF EXISTS "${a.name}_migrations"`);
      await dataSource.destroy();
    }
  });

  it('Given a database whose relay migration ran before the pressure table, then a second relay migration with a later timestamp adds it and keeps the audit rows', async () => {
    const db = await createTestSchema('relay_mig_v2');
    schemas.push(db);
    const name = { schema: db.name, table: 'outbox' };
    const migrations = [
      createOutboxMigration({ ...name, timestamp: 1767225600002 }),
      createRelayMigration({ ...name, timestamp: 1767225600003 }),
    ];
    const dataSource = new DataSource({
      type: 'postgres',
      url: DATABASE_URL,
      migrations,
      migrationsTableName: `${db.name}_migrations`,
      extra: { max: 1 },
    });
    await dataSource.initialize();
    try {
      await dataSource.runMigrations();
      // As a database of the first relay version: no pressure table, an audit row.
      await dataSource.query(`DROP TABLE "${db.name}".outbox_pressure`);
      await dataSource.query(
        `INSERT INTO "${db.name}".outbox_relay_audit (action, actor) VALUES ('skip', 'ops')`,
      );
      dataSource.migrations.push(
        new (createRelayMigration({ ...name, timestamp: 1767225600009 }))(),
      );
      expect(await dataSource.runMigrations()).toHaveLength(1);
      expect(await relations(db.name)).toContain('outbox_pressure');
      expect(await dataSource.query(`SELECT actor FROM "${db.name}".outbox_relay_audit`)).toEqual([
        { actor: 'ops' },
      ]);
    } finally {
      await dataSource.query(`DROP TABLE IF EXISTS "${db.name}_migrations"`);
      await dataSource.destroy();
    }
  });

  it('Given names that are not plain SQL identifiers or a timestamp that is not 13 digits, then createRelayMigration refuses them', () => {
    expect(() => createRelayMigration({ schema: 'x; drop', table: 'outbox' })).toThrow(
      InvalidOptionsError,
    );
    expect(() => createRelayMigration({ schema: 'app', timestamp: 42 })).toThrow(
      /option "timestamp" must be a 13-digit millisecond timestamp/,
    );
  });
});
