import { randomBytes } from 'node:crypto';
import { Body, Controller, HttpCode, Post, type INestApplication } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { TransactionHost } from '@nestjs-cls/transactional';
import fc from 'fast-check';
import { createTestSchema, DATABASE_URL, type TestSchema } from '@test/support';
import { OutboxHttpExceptionFilter } from '@nest-outbox/outbox';
import { dataStacks } from './data-stacks';

/**
 * Unique violations raised outside `@OutboxTransactional()` (a repository's save in a plain
 * service method), generated: constraint kinds (primary key, unique constraint, unique index,
 * partial and expression indexes, composite, deferred to the COMMIT), writes (insert, multi-row
 * insert, insert-select, update, a CTE), constraint names (identifiers, and names PostgreSQL
 * accepts quoted but that are not identifiers) and values, through each data stack's own
 * client, answered by `OutboxHttpExceptionFilter` over HTTP.
 */
const KINDS: Record<string, (name: string) => string> = {
  'primary key': (c) => `k text CONSTRAINT ${c} PRIMARY KEY, n int NOT NULL DEFAULT 1`,
  'unique constraint': (c) =>
    `id serial PRIMARY KEY, k text CONSTRAINT ${c} UNIQUE, n int DEFAULT 1`,
  composite: (c) => `k text, n int NOT NULL DEFAULT 1, CONSTRAINT ${c} UNIQUE (k, n)`,
  deferred: (c) => `k text CONSTRAINT ${c} UNIQUE DEFERRABLE INITIALLY DEFERRED, n int DEFAULT 1`,
  'unique index': () => `k text, n int DEFAULT 1`,
  'partial index': () => `k text, n int DEFAULT 1`,
  'expression index': () => `k text, n int DEFAULT 1`,
};
const INDEXES: Record<string, (name: string, table: string) => string> = {
  'unique index': (c, t) => `CREATE UNIQUE INDEX ${c} ON ${t} (k)`,
  'partial index': (c, t) => `CREATE UNIQUE INDEX ${c} ON ${t} (k) WHERE n > 0`,
  'expression index': (c, t) => `CREATE UNIQUE INDEX ${c} ON ${t} (lower(k))`,
};
/** The colliding write; `v` is the value's literal, the row `v` (and `v || '~'`) exists. */
const WRITES: Record<string, (t: string, v: string) => string> = {
  insert: (t, v) => `INSERT INTO ${t} (k) VALUES (${v})`,
  'multi-row insert': (t, v) => `INSERT INTO ${t} (k) VALUES (${v} || '+'), (${v})`,
  'insert-select': (t, v) => `INSERT INTO ${t} (k, n) SELECT k, n FROM ${t} WHERE k = ${v}`,
  update: (t, v) => `UPDATE ${t} SET k = ${v} WHERE k = ${v} || '~'`,
  cte: (t, v) =>
    `WITH c AS (INSERT INTO ${t} (k) VALUES (${v}) RETURNING 1) SELECT count(*) FROM c`,
};
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

const cases = fc.record({
  kind: fc.constantFrom(...Object.keys(KINDS)),
  write: fc.constantFrom(...Object.keys(WRITES)),
  name: fc.oneof(
    fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_$]{0,40}$/),
    fc.string({
      unit: fc.constantFrom('-', ' ', '.', '"', 'é', 'A', '1'),
      minLength: 1,
      maxLength: 12,
    }),
  ),
  // Any text but NUL (PostgreSQL's text has none) and `?` (MikroORM's raw placeholders).
  value: fc.string({ unit: 'grapheme', maxLength: 24 }).map((v) => v.replace(/[\0?]/g, '')),
});

for (const stack of dataStacks(DATABASE_URL, 2)) {
  describe(`a unique violation outside @OutboxTransactional() on ${stack.name}`, () => {
    const lines: { level: string; message: string }[] = [];
    const capture = (level: string) => (message: unknown) =>
      void lines.push({ level, message: String(message) });
    let db: TestSchema;
    let app: INestApplication;
    let url: string;

    @Controller('statements')
    class StatementsController {
      constructor(private readonly host: TransactionHost) {}

      /** Runs `sql` on the stack's client with no transaction open, as a plain service would. */
      @Post()
      @HttpCode(200)
      async run(@Body() body: { sql: string }): Promise<void> {
        await stack.execute(this.host.tx, body.sql);
      }
    }

    beforeAll(async () => {
      db = await createTestSchema(`uv_${stack.name}`);
      const moduleRef = await Test.createTestingModule({
        imports: stack.imports() as never[],
        controllers: [StatementsController],
        providers: [{ provide: APP_FILTER, useClass: OutboxHttpExceptionFilter }],
      }).compile();
      app = moduleRef.createNestApplication({
        logger: { log: () => undefined, warn: capture('warn'), error: capture('error') },
      });
      await app.listen(0, '127.0.0.1');
      url = await app.getUrl();
    });

    afterAll(async () => {
      await app?.close();
      await stack.close?.();
      await db?.drop();
    });

    it('Given generated constraints, writes, names and values, then each violation answers 409 conflict naming the constraint when it is an identifier, writes nothing, and neither answer nor log carries the value', async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(cases, async ({ kind, write, name, value }) => {
          n += 1;
          const constraint = `${name}${n}`;
          const table = `"${db.name}".t${n}`;
          const marker = `MARKER-${randomBytes(4).toString('hex')}`;
          const v = `${marker}${value}`;
          await db.pool.query(`CREATE TABLE ${table} (${KINDS[kind]!(quoted(constraint))})`);
          const index = INDEXES[kind];
          if (index) await db.pool.query(index(quoted(constraint), table));
          await db.pool.query(`INSERT INTO ${table} (k) VALUES ($1), ($1 || '~')`, [v]);

          const sql = WRITES[write]!(table, literal(v));
          const response = await fetch(`${url}/statements`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ sql }),
          });
          const body = await response.text();
          expect({ status: response.status, body: JSON.parse(body) as unknown }).toEqual({
            status: 409,
            body: {
              statusCode: 409,
              error: 'conflict',
              message: 'a row with the same unique key exists; nothing was written',
              ...(IDENTIFIER.test(constraint) && { constraint }),
            },
          });
          expect(body).not.toContain(marker);
          const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM ${table}`);
          expect(rows).toEqual([{ n: 2 }]);
          for (const line of lines) expect(line.message).not.toContain(marker);
        }),
        { numRuns: 15 },
      );
      // One warning per burst (rate-limited), with the error's class; never an ERROR.
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).toEqual({
          level: 'warn',
          message: expect.stringMatching(
            /^answered 409: unique violation error_class=OutboxUniqueViolationError( constraint=\S+)?( suppressed=\d+)?$/,
          ),
        });
      }
    });
  });
}
