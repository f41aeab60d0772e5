import type { SqlIsolationLevel } from '@nest-outbox/core/internal';

/** Options of a transaction the outbox opens (ignored when the call joins one). @publicApi */
export interface OutboxTransactionOptions {
  /** Set by the first statement, on every data stack. @default the database's (READ COMMITTED) */
  readonly isolationLevel?: SqlIsolationLevel;
  /**
   * `false`: refused with `OutboxBackPressureError` before any write while the pressure state
   * is `critical` (with the module's `pressure` option; only a call that opens the transaction).
   * @default true
   */
  readonly critical?: boolean;
  /** Named in `back_pressure_refused_total{command}` (from code, never input). @default `Class.method`, or 'transaction' */
  readonly command?: string;
}
