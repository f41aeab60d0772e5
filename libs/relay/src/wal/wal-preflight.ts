import type { Pool } from 'pg';
import type { RelayTableName } from '../schema/relay-schema.sql';
import type { ResolvedWalOptions } from '../options/wal-options';
import { defaultPublication } from '../options/wal-options';
import { walSchemaSql, type WalSql } from './wal-schema.sql';
import { WalModeUnavailableError } from './wal-unavailable.error';

interface Readiness {
  level: string;
  replication: boolean | null;
  publication: boolean;
  aside: boolean;
}

/**
 * Checks at start-up that WAL mode can run: `wal_level = logical`, a role with REPLICATION
 * (or superuser), the publication and the aside table (created here with `installSchema`).
 * @throws WalModeUnavailableError saying how to fix it
 * @internal
 */
export async function checkWalReadiness(
  pool: Pool,
  sql: WalSql,
  wal: NonNullable<ResolvedWalOptions>,
  name: RelayTableName,
  installSchema: boolean,
): Promise<void> {
  let [state] = (await pool.query<Readiness>(sql.walLevel, [wal.publication])).rows;
  if (state!.level !== 'logical')
    throw new WalModeUnavailableError(
      `wal_level is '${state!.level}', not 'logical'`,
      'Run ALTER SYSTEM SET wal_level = logical (or set it in postgresql.conf, or the parameter group of a managed database) and restart PostgreSQL',
    );
  if (!state!.replication)
    throw new WalModeUnavailableError(
      'the relay role has neither REPLICATION nor superuser rights',
      'Grant them: ALTER ROLE <relay role> REPLICATION (on RDS/Cloud SQL: GRANT rds_replication / the cloudsqlsuperuser role)',
    );
  if ((!state!.publication || !state!.aside) && installSchema) {
    for (const statement of walSchemaSql(name, wal.publication)) await pool.query(statement);
    [state] = (await pool.query<Readiness>(sql.walLevel, [wal.publication])).rows;
  }
  if (!state!.publication || !state!.aside)
    throw new WalModeUnavailableError(
      `publication "${wal.publication}" or table ${name.table}_relay_aside does not exist`,
      `Run "npx nest-outbox migrate --wal --url <postgres url> --schema ${name.schema} --table ${name.table}"${wal.publication === defaultPublication(name) ? '' : ` --publication ${wal.publication}`}, or set tuning.installSchema: true`,
    );
}

/**
 * Creates the slot when absent (one relay at a time), sets aside once the rows
 * pending when it was created (the slot streams only later commits), and returns its
 * confirmed position.
 * @throws WalModeUnavailableError when a slot of that name uses another plugin or database
 * @internal
 */
export async function ensureSlot(pool: Pool, sql: WalSql, slot: string): Promise<string> {
  // One relay at a time, so that a racing one never sets the same rows aside twice.
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`nest-outbox:wal:${slot}`]);
    if ((await client.query(sql.slotState, [slot])).rowCount === 0) {
      await client.query(sql.slotIntent, [slot]);
      await client.query(sql.createSlot, [slot]);
    }
    if ((await client.query(sql.backfillDue, [slot])).rowCount) {
      await client.query('BEGIN');
      for (const statement of sql.backfill)
        await client.query(statement, statement.includes('$1') ? [slot] : []);
      await client.query('COMMIT');
    }
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`nest-outbox:wal:${slot}`]);
  } finally {
    client.release(true);
  }
  const [state] = (
    await pool.query<{ confirmed: string | null; plugin: string; here: boolean }>(sql.slotState, [
      slot,
    ])
  ).rows;
  if (!state || state.plugin !== 'pgoutput' || !state.here || !state.confirmed)
    throw new WalModeUnavailableError(
      `replication slot "${slot}" exists for another plugin or database`,
      'Name another slot with wal.slot, or drop that one (SELECT pg_drop_replication_slot(...))',
    );
  return state.confirmed;
}
