import { NestOutboxError } from '@nest-outbox/core';

interface ErrorLike {
  code?: unknown;
  constraint?: unknown;
  cause?: unknown;
  driverError?: unknown;
  meta?: { driverAdapterError?: { cause?: { constraint?: { index?: unknown } } } };
}

/**
 * The unique violation in `error` or an error it wraps (`cause`, TypeORM's `driverError`):
 * node-postgres' 23505, or Prisma's P2002 (its driver adapter names the index).
 */
function uniqueViolationIn(error: unknown, depth = 0): { constraint?: unknown } | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const e = error as ErrorLike;
  if (e.code === '23505') return e;
  if (e.code === 'P2002')
    return { constraint: e.meta?.driverAdapterError?.cause?.constraint?.index };
  for (const inner of [e.driverError, e.cause]) {
    const found = inner === error ? undefined : uniqueViolationIn(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** A constraint name as PostgreSQL reports it: an identifier, never a value. */
const CONSTRAINT_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/**
 * A write of the command hit a unique constraint (PostgreSQL 23505, e.g. an insert with an id
 * that exists): the transaction rolled back and nothing was written. `constraint` is the
 * constraint's name when the driver gave one; the driver's message and detail, which quote
 * the conflicting value, stay in `cause` only.
 * @publicApi
 */
export class OutboxUniqueViolationError extends NestOutboxError {
  constructor(
    /** The violated constraint's name (`orders_pkey`), when the driver reported one. */
    readonly constraint: string | undefined,
    cause?: unknown,
  ) {
    super(
      `OutboxModule: a write of the command conflicts with an existing row (unique constraint ` +
        `${constraint ?? 'unnamed'}); nothing was written: use another key, or read the existing ` +
        'row and decide',
      { cause },
    );
  }

  /** `error` as this error when a unique violation caused it; else `error` itself. */
  static wrap(error: unknown): unknown {
    if (error instanceof NestOutboxError) return error;
    const violation = uniqueViolationIn(error);
    if (!violation) return error;
    const name = violation.constraint;
    return new OutboxUniqueViolationError(
      typeof name === 'string' && CONSTRAINT_NAME.test(name) ? name : undefined,
      error,
    );
  }
}
