import { Pool, type PoolClient } from 'pg';
import { uuidv7 } from '@nest-outbox/core';
import { outboxLockKey } from '@nest-outbox/outbox';
// The library's own INSERT (advisory lock included), so that the raw reference sends
// exactly the statements the library sends: the ratio then compares like with like.
import { outboxInsertOneStatement } from '../../libs/outbox/src/store/outbox-insert.sql';
import { benchEvent, versionOf, type BenchSql } from './write-bench.sql';

/** One command: the transition of order `id` from `from` to `to`, in one transaction. */
export type Command = (id: number, from: string, to: string) => Promise<void>;

/** A raw variant and what it needs to be torn down. */
export interface RawVariant {
  readonly command: Command;
  readonly close: () => Promise<void>;
}

/** The values of the library's one-row INSERT, built by hand as a user would. */
function insertValues(table: string, id: number, to: string, version: number): unknown[] {
  const event = benchEvent(id, to);
  return [
    String(outboxLockKey(table, event.aggregateType, event.aggregateId)),
    uuidv7(),
    event.eventType,
    1,
    event.aggregateType,
    event.aggregateId,
    version,
    new Date().toISOString(),
    JSON.stringify(event.payload),
    '{}',
    null,
  ];
}

async function inTransaction(pool: Pool, body: (client: PoolClient) => Promise<void>) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await body(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Plain node-postgres: `BEGIN; UPDATE; COMMIT` (raw_without) or `BEGIN; UPDATE; <the
 * library's INSERT, advisory lock included, as the same named prepared statement>; COMMIT`
 * (raw_with).
 */
export function rawVariant(
  options: { databaseUrl: string; poolMax: number; applicationName: string },
  sql: BenchSql,
  withEvent: boolean,
): RawVariant {
  const pool = new Pool({
    connectionString: options.databaseUrl,
    max: options.poolMax,
    application_name: options.applicationName,
  });
  const table = `"${sql.schema}"."outbox"`;
  const insert = outboxInsertOneStatement(table);
  const command: Command = (id, from, to) =>
    inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ version: string }>(sql.update, [id, to, from]);
      const version = versionOf(rows);
      if (withEvent) {
        await client.query({ ...insert, values: insertValues(table, id, to, version) });
      }
    });
  return { command, close: () => pool.end() };
}
