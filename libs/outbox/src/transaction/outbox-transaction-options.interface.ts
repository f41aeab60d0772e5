import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';

/**
 * Options of a transaction the outbox opens (ignored when the call joins an active one).
 * @publicApi
 */
export interface OutboxTransactionOptions {
  /** @default the data source's default (READ COMMITTED on PostgreSQL) */
  readonly isolationLevel?: IsolationLevel;
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
