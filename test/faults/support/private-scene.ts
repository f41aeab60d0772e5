import { outboxSchemaSql } from '@nest-outbox/outbox';
import { relaySchemaSql } from '@nest-outbox/relay';
import { Pool } from 'pg';
import type { PrivatePostgres } from '@test/support';
import { RelayScene } from '../../../libs/relay/test/relay-test.fixture';

/**
 * A pool on a private PostgreSQL that a crash does not bring down with it: every client's
 * 'error' is heard (an unheard one would end the test process).
 */
export function crashTolerantPool(url: string, max = 4): Pool {
  const pool = new Pool({ connectionString: url, max });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Runs `fn` until it stops failing (a database restarting), for `timeoutMs` at most. */
export async function retrying<T>(fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** A relay scene (outbox, relay objects, producer) in `schema` of the private instance. */
export async function privateRelayScene(
  pg: PrivatePostgres,
  schema: string,
  brokers: () => string[],
): Promise<RelayScene> {
  const pool = crashTolerantPool(pg.url);
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  const name = { schema, table: 'outbox' };
  for (const s of [...outboxSchemaSql(name), ...relaySchemaSql(name)]) await pool.query(s);
  return new RelayScene(
    {
      name: schema,
      pool,
      drop: async () => {
        await pool.end().catch(() => undefined);
      },
    },
    brokers,
  );
}
