import { OutboxDatabaseUnavailableError } from '../errors/outbox-database-unavailable.error';
import { OutboxUniqueViolationError } from '../errors/outbox-unique-violation.error';

// `@Catch()` types matching a driver's error by shape (Nest picks a filter by `instanceof`).

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
