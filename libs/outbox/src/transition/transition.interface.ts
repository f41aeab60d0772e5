/**
 * A conditional state change: `UPDATE <table> SET <status> = to, <version> = <version> + 1,
 * ...set WHERE <id> = id AND <status> IN (from) RETURNING <version>`.
 * @publicApi
 */
export interface TransitionSpec {
  /** `table` or `schema.table` (lower-case SQL identifiers). */
  readonly table: string;
  /** Value of the id column (bound, never interpolated). */
  readonly id: unknown;
  /** The state(s) the row must be in. */
  readonly from: string | readonly string[];
  readonly to: string;
  /** Other columns to set in the same statement (names validated, values bound). */
  readonly set?: Readonly<Record<string, unknown>>;
  /** @default 'id' */
  readonly idColumn?: string;
  /** @default 'status' */
  readonly statusColumn?: string;
  /** @default 'version' */
  readonly versionColumn?: string;
}
