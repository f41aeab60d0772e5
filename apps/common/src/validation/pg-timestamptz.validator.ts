import { registerDecorator, type ValidationOptions } from 'class-validator';
import { PG_TIMESTAMPTZ_MAX_MS, PG_TIMESTAMPTZ_MIN_MS } from './pg-column.bounds';

/**
 * ISO 8601 calendar dates and date-times in the forms `Date` parses without guessing:
 * `YYYY-MM-DD`, optional `THH:mm[:ss[.fff]]` and zone (`Z` or `±HH:mm`). A signed year has
 * six digits (ECMAScript's expanded years); the legacy parser reads `-4714-01-01` as AD 4714.
 */
const ISO_8601 =
  /^(?:\d{4}|[+-]\d{6})-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * The instant `value` names when it is an ISO 8601 date(-time) (or a `Date`) that a
 * PostgreSQL `timestamptz` parameter accepts; `undefined` otherwise.
 */
export function parsePgTimestamptz(value: unknown): Date | undefined {
  if (typeof value === 'string' && !ISO_8601.test(value)) return undefined;
  if (typeof value !== 'string' && !(value instanceof Date)) return undefined;
  const ms = new Date(value).getTime();
  if (Number.isNaN(ms) || ms < PG_TIMESTAMPTZ_MIN_MS || ms > PG_TIMESTAMPTZ_MAX_MS)
    return undefined;
  return new Date(ms);
}

/**
 * Accepts an ISO 8601 date or date-time (or a `Date`) within PostgreSQL's `timestamptz`
 * range (see `PG_TIMESTAMPTZ_MIN_MS`), the way a query parameter compared with a
 * `timestamptz` column must be. The message names the property, never the value.
 *
 * @example
 * class WindowQuery {
 *   @IsOptional() @IsPgTimestamptz() from?: string;
 * }
 */
export function IsPgTimestamptz(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isPgTimestamptz',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message:
          '$property must be an ISO 8601 date-time (YYYY-MM-DDTHH:mm:ssZ) within PostgreSQL timestamptz range',
        ...options,
      },
      validator: { validate: (value: unknown) => parsePgTimestamptz(value) !== undefined },
    });
  };
}
