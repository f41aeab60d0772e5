import { OUTBOX_INSERT_COLUMNS } from '../store/outbox-insert.sql';
import { statementName } from '../store/transaction-query';
import type { TransitionSpec } from './transition.interface';
import { transitionUpdate, type TransitionStatement } from './transition.sql';

/**
 * The conditional transition and its event as one statement (one round trip):
 *
 * ```sql
 * WITH t AS (UPDATE <table> SET <status> = $2, <version> = <version> + 1 ...
 *             WHERE <id> = $1 AND <status> = ANY($3) RETURNING <version> AS version)
 * INSERT INTO <outbox> (<contract columns>)
 * SELECT $k+1::uuid, ..., t.version, ... FROM t
 *  WHERE pg_advisory_xact_lock($k::bigint) IS NOT NULL
 * RETURNING aggregate_version AS version
 * ```
 *
 * Parameters: those of the transition's UPDATE (`$1` id, `$2` to, `$3` from, then the `set`
 * columns), then the aggregate's lock key, then the event's columns but its version, which
 * is the UPDATE's new version. The plan is a CTE Scan on `t` filtered by the advisory lock:
 * the UPDATE first produces its row (row lock taken; the condition re-checked after a
 * wait), then the filter takes the aggregate's lock, then the projection draws the
 * identity `id`. That is the order of the two-statement form (transition, then the INSERT
 * with its lock), so the two forms never deadlock each other, and `id` order stays commit
 * order per aggregate. No row updated: no lock taken, no event, no row returned.
 * @internal
 */
export function transitionRecordStatement(
  spec: TransitionSpec,
  qualifiedOutbox: string,
): TransitionStatement {
  const update = transitionUpdate(spec);
  const lockKey = update.setColumns.length + 4;
  let next = lockKey + 1;
  const names = OUTBOX_INSERT_COLUMNS.map(([name]) => name);
  const values = OUTBOX_INSERT_COLUMNS.map(([name, type]) =>
    name === 'aggregate_version' ? 't.version' : `$${next++}::${type}`,
  );
  const text =
    `WITH t AS (${update.text})\n` +
    `INSERT INTO ${qualifiedOutbox} (${names.join(', ')})\n` +
    `SELECT ${values.join(', ')} FROM t\n` +
    `WHERE pg_advisory_xact_lock($${lockKey}::bigint) IS NOT NULL\n` +
    'RETURNING aggregate_version AS version';
  return { ...update, text, name: statementName('nest_outbox_transition_event', text) };
}
