import { CliUsageError } from '@nest-outbox/core/internal';
import { createTestSchema, DATABASE_URL, type TestSchema } from '@test/support';
import { runNestOutbox } from '../src/cli/nest-outbox.commands';

let db: TestSchema;
const capture = () => {
  const lines: string[] = [];
  return { lines, io: { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) } };
};

beforeAll(async () => {
  db = await createTestSchema('nest_outbox_cli');
});

afterAll(() => db?.drop());

describe('npx nest-outbox', () => {
  it('Given an empty schema, then status lists what is missing and exits 1', async () => {
    const { lines, io } = capture();
    await expect(runNestOutbox('status', { url: DATABASE_URL, schema: db.name }, io)).resolves.toBe(
      1,
    );
    expect(lines).toEqual([
      expect.stringMatching(/^outbox: missing .*"outbox"/),
      expect.stringMatching(/^relay: missing .*"outbox_relay_audit"/),
      expect.stringMatching(/^inbox: missing .*"inbox"/),
    ]);
  });

  it('Given migrate run twice, then every part is applied and status exits 0', async () => {
    const { lines, io } = capture();
    const values = { url: DATABASE_URL, schema: db.name };
    await expect(runNestOutbox('migrate', values, io)).resolves.toBe(0);
    await expect(runNestOutbox('migrate', values, io)).resolves.toBe(0);
    await expect(runNestOutbox('status', values, io)).resolves.toBe(0);
    expect(lines.slice(-3)).toEqual(['outbox: applied', 'relay: applied', 'inbox: applied']);
  });

  it('Given a database migrated before the relay had its pressure table, then status names the table and migrate adds it, the rest untouched', async () => {
    const { lines, io } = capture();
    const values = { url: DATABASE_URL, schema: db.name };
    await runNestOutbox('migrate', values, io);
    await db.pool.query(
      `INSERT INTO "${db.name}".outbox_relay_audit (action, actor) VALUES ('x', 'y')`,
    );
    await db.pool.query(`DROP TABLE "${db.name}".outbox_pressure`);
    await expect(runNestOutbox('status', values, io)).resolves.toBe(1);
    expect(lines).toContainEqual(expect.stringMatching(/^relay: missing .*"outbox_pressure"$/));
    await expect(runNestOutbox('migrate', values, io)).resolves.toBe(0);
    await expect(runNestOutbox('status', values, io)).resolves.toBe(0);
    const { rows } = await db.pool.query(`SELECT 1 FROM "${db.name}".outbox_relay_audit`);
    expect(rows).toHaveLength(1);
  });

  it("Given a database migrated before @Idempotent() had its keys' table, then status names it and migrate adds it, the outbox untouched", async () => {
    const { lines, io } = capture();
    const values = { url: DATABASE_URL, schema: db.name };
    await runNestOutbox('migrate', values, io);
    await db.pool.query(`DROP TABLE "${db.name}".outbox_idempotency`);
    await expect(runNestOutbox('status', values, io)).resolves.toBe(1);
    expect(lines).toContainEqual(expect.stringMatching(/^outbox: missing .*"outbox_idempotency"$/));
    await expect(runNestOutbox('migrate', values, io)).resolves.toBe(0);
    await expect(runNestOutbox('status', values, io)).resolves.toBe(0);
    const { rows } = await db.pool.query(`SELECT scope, key FROM "${db.name}".outbox_idempotency`);
    expect(rows).toEqual([]);
  });

  it('Given sql --down, then it prints the drops in reverse order of the parts', async () => {
    const { lines, io } = capture();
    await runNestOutbox('sql', { schema: 'app', down: true }, io);
    expect(lines.filter((l) => l.startsWith('-- '))).toEqual([
      '-- nest-outbox inbox (drop)',
      '-- nest-outbox relay (drop)',
      '-- nest-outbox outbox (drop)',
    ]);
  });

  it('Given no command, or migrate without a url, then a usage error', async () => {
    const { io } = capture();
    await expect(runNestOutbox(undefined, {}, io)).rejects.toThrow(CliUsageError);
    const url = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    try {
      await expect(runNestOutbox('migrate', {}, io)).rejects.toThrow(/--url/);
    } finally {
      if (url !== undefined) process.env.DATABASE_URL = url;
    }
  });
});
