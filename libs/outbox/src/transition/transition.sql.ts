import { sqlIdentifier } from '@nest-outbox/core/internal';
import {
  OUTBOX_INSERT_COLUMNS,
  statementName,
  type NamedStatement,
} from '../store/outbox-insert.sql';
import type { TransitionSpec } from './transition.interface';

const WHERE = 'OutboxService.transition';

/** The UPDATE of a transition and the order of its bound values. @internal */
export interface TransitionStatement extends NamedStatement {
  /** Names of the `set` columns, in the order of their values after `$1..$3`. */
  readonly setColumns: readonly string[];
}

function quotedTable(table: string): string {
  const parts = table.split('.');
  if (parts.length > 2) sqlIdentifier(WHERE, 'table', table);
  return parts.map((part) => sqlIdentifier(WHERE, 'table', part)).join('.');
}

/**
 * The conditional UPDATE for the shape of `spec` (table, columns; not values), named for
 * preparing. `$1` id, `$2` new status, `$3` accepted statuses (an array of the column's
 * type), then one parameter per `set` column.
 * @internal
 */
export function transitionStatement(spec: TransitionSpec): TransitionStatement {
  const status = sqlIdentifier(WHERE, 'statusColumn', spec.statusColumn ?? 'status');
  const version = sqlIdentifier(WHERE, 'versionColumn', spec.versionColumn ?? 'version');
  const id = sqlIdentifier(WHERE, 'idColumn', spec.idColumn ?? 'id');
  const setColumns = Object.keys(spec.set ?? {});
  const extra = setColumns.map((c, i) => `, ${sqlIdentifier(WHERE, `set.${c}`, c)} = $${i + 4}`);
  const text =
    `UPDATE ${quotedTable(spec.table)} SET ${status} = $2, ${version} = ${version} + 1` +
    `${extra.join('')} WHERE ${id} = $1 AND ${status} = ANY($3) RETURNING ${version} AS version`;
  return { text, setColumns, name: statementName('nest_outbox_transition', text) };
}

/**
 * The conditional transition and its event as one statement (one round trip), the INSERT
 * reading the new version from the UPDATE's CTE. Parameters: those of the transition's UPDATE (`$1` id, `$2` to, `$3` from, then the `set`
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
  const update = transitionStatement(spec);
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
