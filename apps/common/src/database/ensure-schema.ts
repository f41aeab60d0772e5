import { Client } from 'pg';
import { pgIdentifier } from './pg-identifier';

/**
 * Creates the service's schema when missing, before TypeORM creates its migrations table
 * in it (TypeORM does not create the schema of that table itself).
 */
export async function ensureSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${pgIdentifier('sample', 'schema', schema)}`);
  } catch (error) {
    // Two processes creating the same schema at once: the loser sees a unique violation.
    if ((error as { code?: string }).code !== '23505') throw error;
  } finally {
    await client.end();
  }
}
