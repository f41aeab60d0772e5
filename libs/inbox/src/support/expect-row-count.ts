import { UnexpectedRowCountError } from '../errors/unexpected-row-count.error';

/** Results whose changed-row count `expectRowCount` understands. @publicApi */
export type RowCountResult =
  | number
  | { readonly affected?: number | null }
  | { readonly rowCount?: number | null }
  | readonly [unknown, number]
  | readonly unknown[];

function countOf(result: RowCountResult): number | undefined {
  if (typeof result === 'number') return result;
  if (Array.isArray(result)) {
    // EntityManager.query: UPDATE/DELETE give [rows, count]; INSERT ... RETURNING gives rows.
    const [rows, count] = result as unknown[];
    return Array.isArray(rows) && typeof count === 'number' && result.length === 2
      ? count
      : result.length;
  }
  const r = result as { affected?: number | null; rowCount?: number | null };
  return r.affected ?? r.rowCount ?? undefined;
}

/**
 * Throws `UnexpectedRowCountError` unless a write changed exactly `expected` rows, which
 * rolls back the handler's transaction (the inbox row included), so an event whose effect
 * did not happen is never marked processed. Accepts TypeORM's UpdateResult/DeleteResult,
 * pg's QueryResult, EntityManager.query results and plain numbers; returns the result.
 * @example
 * expectRowCount(await tx.query('UPDATE p SET v = $2 WHERE id = $1 AND v = $3', [id, v + 1, v]), 1, 'projection');
 * @publicApi
 */
export function expectRowCount<T extends RowCountResult>(
  result: T,
  expected: number,
  what = 'statement',
): T {
  const actual = countOf(result);
  if (actual !== expected) throw new UnexpectedRowCountError(expected, actual ?? -1, what);
  return result;
}
