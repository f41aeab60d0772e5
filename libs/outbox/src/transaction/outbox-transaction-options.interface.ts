import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';

/**
 * Options of a transaction the outbox opens (ignored when the call joins an active one).
 * @publicApi
 */
export interface OutboxTransactionOptions {
  /** @default the data source's default (READ COMMITTED on PostgreSQL) */
  readonly isolationLevel?: IsolationLevel;
}
