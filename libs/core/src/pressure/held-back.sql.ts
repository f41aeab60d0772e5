/**
 * SQL condition: outbox row `alias` of `table` (validated, quoted) waits behind a parked event
 * of its own aggregate. Such a row is held back by an operator's decision, not by the relay's
 * pace: the pressure's oldest age leaves it out, or one poisoned aggregate would refuse every
 * command once its next event aged past the budget. One index probe per row examined.
 * @publicApi
 */
export function heldBehindParkedSql(table: string, alias: string): string {
  return `EXISTS (SELECT 1 FROM ${table} held
     WHERE held.aggregate_type = ${alias}.aggregate_type AND held.aggregate_id = ${alias}.aggregate_id
       AND held.id < ${alias}.id AND held.parked_at IS NOT NULL
       AND held.published_at IS NULL AND held.skipped_at IS NULL)`;
}
