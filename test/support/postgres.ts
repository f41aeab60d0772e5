import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { DATABASE_URL } from './env';

/** A schema of its own for one test file, dropped (with everything in it) by `drop()`. */
export interface TestSchema {
  readonly name: string;
  readonly pool: Pool;
  drop(): Promise<void>;
}

/** Creates `t_<prefix>_<random>` so test files can run in parallel on one database. */
export async function createTestSchema(prefix: string): Promise<TestSchema> {
  const name = `t_${prefix.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const pool = new Pool({ connectionString: DATABASE_URL, max: 4 });
  await pool.query(`CREATE SCHEMA "${name}"`);
  return {
    name,
    pool,
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await pool.end();
    },
  };
}
