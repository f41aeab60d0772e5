/**
 * The pressure sampler's one statement: the backlog (unpublished, unskipped, unparked rows)
 * and the age of its oldest row, over the relay's pending index.
 * @internal
 */
export function outboxPressureSql(table: string): string {
  const pending = (a: string) =>
    `${a}.published_at IS NULL AND ${a}.skipped_at IS NULL AND ${a}.parked_at IS NULL`;
  return `SELECT count(*)::int AS backlog,
       (SELECT extract(epoch FROM now() - f.created_at) * 1000 FROM ${table} f
         WHERE ${pending('f')} ORDER BY f.id LIMIT 1)::float8 AS oldest_age_ms
  FROM ${table} s WHERE ${pending('s')}`;
}
