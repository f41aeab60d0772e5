/**
 * What the states of an outbox row mean in SQL, written once for the claim, the store, the
 * operator and housekeeping. `alias` is the table alias of the row.
 * @internal
 */
export const PENDING = (alias: string) =>
  `${alias}.published_at IS NULL AND ${alias}.skipped_at IS NULL`;

/**
 * A row nobody else holds and that waits for nothing (a lease at or past its expiry is free).
 * @internal
 */
export const FREE = (alias: string) =>
  `${alias}.parked_at IS NULL
    AND (${alias}.lease_expires_at IS NULL OR ${alias}.lease_expires_at <= now())
    AND (${alias}.next_attempt_at IS NULL OR ${alias}.next_attempt_at <= now())`;

/** `error_history` of row `t` with `entry` appended, the last 20 entries kept. @internal */
export const HISTORY = (entry: string) =>
  `jsonb_path_query_array(t.error_history || ${entry}, '$[last-19 to last]')`;

/** The `synchronous_commit` value of the relay's bookkeeping transactions. @internal */
export const commitMode = (options: { readonly synchronousCommit: boolean }): 'on' | 'off' =>
  options.synchronousCommit ? 'on' : 'off';

/** The lowest bigint: an id range from it reads from the oldest end. @internal */
export const LOWEST_ID = '(-9223372036854775807 - 1)';
