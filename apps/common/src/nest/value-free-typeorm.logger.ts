import { Logger } from '@nestjs/common';
import { OutboxDatabaseUnavailableError } from '@nest-outbox/outbox';
import type { Logger as TypeOrmLogger } from 'typeorm';
import { describeErrorWithoutValues } from '../observability/value-free-error';

/**
 * TypeORM's logger for the sample apps: it never prints a query's parameters (request
 * values) nor a driver error's message (PostgreSQL echoes the offending value in it).
 * A failed query is logged as its error class and SQLSTATE, except PostgreSQL unavailable: the
 * request's answer logs that, once per 10 s (`OutboxHttpExceptionFilter`), where a line per
 * failed query would flood an outage. Queries, slow-query parameters and schema builds are not
 * logged at all; migrations and TypeORM's warnings are.
 */
export class ValueFreeTypeOrmLogger implements TypeOrmLogger {
  private readonly logger = new Logger('TypeORM');

  logQuery(): void {
    // Every statement would be a line: not logged (and never with its parameters).
  }

  logQueryError(error: string | Error): void {
    if (OutboxDatabaseUnavailableError.isCause(error)) return;
    this.logger.error(
      `query failed: ${typeof error === 'string' ? 'driver error' : describeErrorWithoutValues(error)}`,
    );
  }

  logQuerySlow(time: number): void {
    this.logger.warn(`slow query: ${time} ms`);
  }

  logSchemaBuild(): void {
    // Migrations own the schema; schema-build SQL is not logged.
  }

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
  }
}
