import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Client } from 'pg';
import { createTestSchema, type TestSchema } from '../support/postgres';
import { DATABASE_URL } from '../support/env';
import { createMigration, deployMigrations } from './prisma-migrate';

describe("the matrix's stand-in for prisma migrate (real PostgreSQL)", () => {
  let schema: TestSchema;
  let client: Client;
  let root: string;
  const rows = async () =>
    (
      await client.query<{
        migration_name: string;
        checksum: string;
        finished: boolean;
        logs: string | null;
        applied_steps_count: number;
      }>(
        `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, logs, applied_steps_count
           FROM "_prisma_migrations" ORDER BY started_at, migration_name`,
      )
    ).rows;
  const write = (dir: string, sql: string) => writeFileSync(join(dir, 'migration.sql'), sql);

  beforeAll(async () => {
    schema = await createTestSchema('prisma_migrate');
    // Prisma's table goes to the connection's first schema: this file's own.
    client = new Client({
      connectionString: DATABASE_URL,
      options: `-c search_path=${schema.name}`,
    });
    await client.connect();
    root = mkdtempSync(join(tmpdir(), 'prisma-migrate-'));
  });

  afterAll(async () => {
    await client.end();
    await schema.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it('Given two migrations created in the same second, then they sort in creation order and deploy applies both, recording each as Prisma does', async () => {
    const now = new Date('2026-12-07T17:25:08Z');
    const first = createMigration(root, 'orders', now);
    const second = createMigration(root, 'nest_outbox', now);
    expect([basename(first), basename(second)]).toEqual([
      '20261207172508_orders',
      '20261207172509_nest_outbox',
    ]);
    expect(readFileSync(join(first, 'migration.sql'), 'utf8')).toBe(
      '-- This is an empty migration.',
    );
    write(first, 'CREATE TABLE orders (id int PRIMARY KEY);');
    write(second, 'CREATE TABLE shipments (order_id int REFERENCES orders (id));');

    expect(await deployMigrations(client, root)).toEqual([basename(first), basename(second)]);

    const sha = (dir: string) =>
      createHash('sha256')
        .update(readFileSync(join(dir, 'migration.sql')))
        .digest('hex');
    expect(await rows()).toEqual([
      {
        migration_name: basename(first),
        checksum: sha(first),
        finished: true,
        logs: null,
        applied_steps_count: 1,
      },
      {
        migration_name: basename(second),
        checksum: sha(second),
        finished: true,
        logs: null,
        applied_steps_count: 1,
      },
    ]);
  });

  it('Given everything applied, then deploy applies nothing again', async () => {
    expect(await deployMigrations(client, root)).toEqual([]);
    expect(await rows()).toHaveLength(2);
  });

  it('Given a migration failing halfway, then none of it stays, it is recorded with its error, and every later deploy refuses to run', async () => {
    const bad = createMigration(root, 'bad');
    write(bad, 'CREATE TABLE half (id int); SELECT 1 / 0;');
    const later = createMigration(root, 'later');
    write(later, 'CREATE TABLE later (id int);');

    await expect(deployMigrations(client, root)).rejects.toThrow(/P3018: migration \S+_bad failed/);
    const tables = async () =>
      (
        await client.query<{ half: string | null; later: string | null }>(
          `SELECT to_regclass('half') AS half, to_regclass('later') AS later`,
        )
      ).rows[0];
    expect(await tables()).toEqual({ half: null, later: null });
    expect((await rows())[2]).toMatchObject({ finished: false, logs: 'division by zero' });

    await expect(deployMigrations(client, root)).rejects.toThrow(/P3009: migration \S+_bad failed/);
    expect(await tables()).toEqual({ half: null, later: null });
  });
});
