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

const PLAIN_COLUMNS =
  'event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload, headers, topic';

/** The values of the library's one-row INSERT, built by hand as a user would. */
export function insertValues(table: string, id: number, to: string, version: number): unknown[] {
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
 * The event of a raw command: none, the library's INSERT (advisory lock included, the
 * same named prepared statement), or the reference of issue 12's figures (`INSERT ...
 * VALUES`, no lock, unnamed) to show what the lock and the statement cost.
 */
export type RawEvent = 'none' | 'library' | 'plain';

/**
 * Plain node-postgres: `BEGIN; UPDATE; [the event's INSERT;] COMMIT`.
 */
export function rawVariant(
  options: { databaseUrl: string; poolMax: number; applicationName: string },
  sql: BenchSql,
  event: RawEvent,
): RawVariant {
  const pool = new Pool({
    connectionString: options.databaseUrl,
    max: options.poolMax,
    application_name: options.applicationName,
  });
  const table = `"${sql.schema}"."outbox"`;
  const insert = outboxInsertOneStatement(table);
  const plain = `INSERT INTO ${table} (${PLAIN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;
  const command: Command = (id, from, to) =>
    inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ version: string }>(sql.update, [id, to, from]);
      const version = versionOf(rows);
      if (event === 'library') {
        await client.query({ ...insert, values: insertValues(table, id, to, version) });
      } else if (event === 'plain') {
        await client.query(plain, insertValues(table, id, to, version).slice(1));
      }
    });
  return { command, close: () => pool.end() };
}
