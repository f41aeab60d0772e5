import { sqlIdentifier } from '@nest-outbox/core/internal';
import { statementName, type NamedStatement } from '../store/transaction-query';
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
 * The conditional UPDATE for the shape of `spec` (table, columns; not values), unnamed.
 * `$1` id, `$2` new status, `$3` accepted statuses (an array of the column's type), then
 * one parameter per `set` column.
 * @internal
 */
export function transitionUpdate(spec: TransitionSpec): Omit<TransitionStatement, 'name'> {
  const status = sqlIdentifier(WHERE, 'statusColumn', spec.statusColumn ?? 'status');
  const version = sqlIdentifier(WHERE, 'versionColumn', spec.versionColumn ?? 'version');
  const id = sqlIdentifier(WHERE, 'idColumn', spec.idColumn ?? 'id');
  const setColumns = Object.keys(spec.set ?? {});
  const extra = setColumns.map((c, i) => `, ${sqlIdentifier(WHERE, `set.${c}`, c)} = $${i + 4}`);
  const text =
    `UPDATE ${quotedTable(spec.table)} SET ${status} = $2, ${version} = ${version} + 1` +
    `${extra.join('')} WHERE ${id} = $1 AND ${status} = ANY($3) RETURNING ${version} AS version`;
  return { text, setColumns };
}

/**
 * Builds the conditional UPDATE for the shape of `spec`, named for preparing.
 * @internal
 */
export function transitionStatement(spec: TransitionSpec): TransitionStatement {
  const update = transitionUpdate(spec);
  return { ...update, name: statementName('nest_outbox_transition', update.text) };
}
