import { NestOutboxError } from '@nest-outbox/core';
import { constraintOf, driverErrorChain, sqlStateOf } from './driver-error';

/** A 23505 anywhere in the chain (every stack), or a Prisma P2002 without a driver adapter (no name). */
function uniqueViolationIn(error: unknown): { constraint?: unknown } | undefined {
  const chain = driverErrorChain(error);
  const violation = chain.find((e) => sqlStateOf(e) === '23505');
  if (violation) return { constraint: constraintOf(violation) };
  return chain.some((e) => e.code === 'P2002') ? {} : undefined;
}

/** A constraint name as PostgreSQL reports it: an identifier, never a value. */
const CONSTRAINT_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/**
 * A write of the command hit a unique constraint; nothing was written. The driver's message,
 * which quotes the value, stays in `cause` only.
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

  static isCause(error: unknown): boolean {
    return error instanceof OutboxUniqueViolationError || uniqueViolationIn(error) !== undefined;
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
