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

/** The UPDATE of `spec`'s shape: `$1` id, `$2` new status, `$3` accepted statuses, then the `set` columns. @internal */
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
 * The transition and its event as one statement: the UPDATE's parameters, the lock key, then
 * the event's columns but its version (the UPDATE's). The UPDATE produces its row (row lock),
 * then the filter takes the aggregate's lock, then the projection draws `id`: the order of the
 * two-statement form, so the two never deadlock and `id` order stays commit order. No row
 * updated: no lock, no event.
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
