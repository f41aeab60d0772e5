/**
 * The bounds of the PostgreSQL column types the sample apps store request values in, so
 * that a value the database would refuse is answered 400 at the edge instead of 500.
 */

/** Largest value of an `integer` (int4) column. */
export const PG_INTEGER_MAX = 2_147_483_647;

/** Smallest value of an `integer` (int4) column. */
export const PG_INTEGER_MIN = -2_147_483_648;

/**
 * Earliest instant accepted for a `timestamptz` parameter: PostgreSQL's lower bound
 * (4714-11-24 00:00:00 UTC BC) plus one day. The margin is there because node-postgres
 * formats a `Date` in the process's local time zone, and for such old dates that zone's
 * offset is a local mean time with seconds that the driver drops: near the exact bound the
 * instant it sends can fall a few seconds outside PostgreSQL's range.
 */
export const PG_TIMESTAMPTZ_MIN_MS = Date.UTC(-4713, 10, 25);

/**
 * Latest instant accepted for a `timestamptz` parameter: the latest a JavaScript `Date`
 * can hold (+275760-09-13). PostgreSQL's own bound (294276 AD) lies beyond it.
 */
export const PG_TIMESTAMPTZ_MAX_MS = 8.64e15;
