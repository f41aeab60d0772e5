import { type PartitionRetention } from '@nest-outbox/core/internal';
import { PENDING } from '../schema/row-state.sql';

/**
 * When an old outbox partition may go: no row in it to publish (a parked row is one) and none
 * published in the last `$1` ms. Both read a partial index of the partition. Skipped rows are
 * copied into the archive table before the drop. `archive` mode detaches partitions and keeps
 * them as tables.
 * @internal
 */
export function outboxPartitionRetention(
  archive: string,
  retention: { readonly keepMs: number; readonly mode: 'delete' | 'archive' } | undefined,
): PartitionRetention {
  return {
    keepMs: retention?.keepMs ?? Infinity,
    detachOnly: retention?.mode === 'archive',
    settledSql: (p) => `SELECT NOT EXISTS (SELECT 1 FROM ${p} o WHERE ${PENDING('o')})
   AND coalesce((SELECT max(published_at) FROM ${p} WHERE published_at IS NOT NULL), '-infinity')
       < now() - $1::float8 * interval '1 millisecond' AS settled`,
    beforeDropSql: (p) => [
      `INSERT INTO ${archive} SELECT * FROM ${p} WHERE skipped_at IS NOT NULL`,
    ],
  };
}
