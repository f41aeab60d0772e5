import { Pool } from 'pg';
import { createTestSchema, DATABASE_URL, type TestSchema } from '@test/support';
import { inOneQueryTransaction } from '../src/in-transaction';

describe('inOneQueryTransaction (real PostgreSQL)', () => {
  let schema: TestSchema;
  let single: Pool;

  beforeAll(async () => {
    schema = await createTestSchema('one_query_tx');
    await schema.pool.query(`CREATE TABLE "${schema.name}".t (n int NOT NULL)`);
    // One connection: what a failed transaction leaves on it, the next user would meet.
    single = new Pool({ connectionString: DATABASE_URL, max: 1 });
  });

  afterAll(async () => {
    await single.end();
    await schema.drop();
  });

  it('Given a transaction whose second write fails, when it runs as one query, then neither write stays and the connection serves the next query', async () => {
    const T = `"${schema.name}".t`;
    await expect(
      inOneQueryTransaction(
        single,
        `BEGIN; INSERT INTO ${T} VALUES (1); INSERT INTO ${T} VALUES (NULL); COMMIT`,
      ),
    ).rejects.toMatchObject({ code: '23502' });

    const { rows } = await single.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${T}`);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('Given a transaction that succeeds, when it runs as one query, then it is committed and every statement returns its result', async () => {
    const T = `"${schema.name}".t`;
    const results = (await inOneQueryTransaction(
      single,
      `BEGIN; INSERT INTO ${T} VALUES (2) RETURNING n; COMMIT`,
    )) as { rows: unknown[] }[];

    expect(results).toHaveLength(3);
    expect(results[1]!.rows).toEqual([{ n: 2 }]);
    const { rows } = await schema.pool.query<{ n: number }>(`SELECT n FROM ${T}`);
    expect(rows).toEqual([{ n: 2 }]);
  });
});
