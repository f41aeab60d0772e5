import { OutboxDatabaseUnavailableError } from '../errors/outbox-database-unavailable.error';
import { OutboxUniqueViolationError } from '../errors/outbox-unique-violation.error';

/*
 * `@Catch()` types that match a driver's error by its shape, on every data stack: Nest picks a
 * filter by `instanceof`, so an error thrown outside `@OutboxTransactional()` (a repository's
 * save in a plain service method) reaches the filter when it is one of these cases, and no
 * other error does (the filters registered before it keep theirs).
 */

/** A unique violation (23505, Prisma's P2002) not typed yet. @internal */
export class DriverUniqueViolation {
  static [Symbol.hasInstance](error: unknown): boolean {
    return OutboxUniqueViolationError.isCause(error);
  }
}

/** PostgreSQL unreachable or gone (a restart, a failover), not typed yet. @internal */
export class DriverDatabaseUnavailable {
  static [Symbol.hasInstance](error: unknown): boolean {
    return OutboxDatabaseUnavailableError.isCause(error);
  }
}
