/**
 * SQL condition: outbox row `alias` of `table` waits behind a parked event of its own
 * aggregate (an earlier pending row of the same aggregate is parked). Such a row is held back
 * by an operator's decision, not by the relay's pace: the pressure's oldest age leaves it out,
 * or one poisoned aggregate would refuse every command once its next event aged past the
 * budget. One probe of the (aggregate_type, aggregate_id, id) index per row examined.
 * `table` is a validated, quoted name.
 * @publicApi
 */
export function heldBehindParkedSql(table: string, alias: string): string {
  return `EXISTS (SELECT 1 FROM ${table} held
     WHERE held.aggregate_type = ${alias}.aggregate_type AND held.aggregate_id = ${alias}.aggregate_id
       AND held.id < ${alias}.id AND held.parked_at IS NOT NULL
       AND held.published_at IS NULL AND held.skipped_at IS NULL)`;
}
