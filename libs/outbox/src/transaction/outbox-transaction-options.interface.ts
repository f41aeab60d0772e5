import type { SqlIsolationLevel } from '@nest-outbox/core/internal';

/**
 * Options of a transaction the outbox opens (ignored when the call joins an active one).
 * @publicApi
 */
export interface OutboxTransactionOptions {
  /**
   * Set by the transaction's first statement (`SET TRANSACTION ISOLATION LEVEL`), the same
   * on every data stack.
   * @default the database's default (READ COMMITTED on PostgreSQL)
   */
  readonly isolationLevel?: SqlIsolationLevel;
  /**
   * `false` marks a non-critical command: refused with `OutboxBackPressureError`, before
   * any write, while the outbox's pressure state is `critical` (only with the module's
   * `pressure` option). Critical commands (the default) are never refused. Only a call
   * that opens the transaction is checked; a call that joins one shares its fate.
   * @default true
   */
  readonly critical?: boolean;
  /**
   * The command's name in `back_pressure_refused_total{command}` and the error: use a name
   * from code, never from input. `@OutboxTransactional()` sets `Class.method`.
   * @default 'transaction'
   */
  readonly command?: string;
}
