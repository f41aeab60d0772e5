import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The statements of a migration, run one after the other in its transaction. */
export interface SqlMigrationStatements {
  readonly up: readonly string[];
  readonly down: readonly string[];
}

/**
 * A TypeORM migration class that runs fixed SQL statements. TypeORM reads the migration's
 * `name` (which must end with a 13-digit timestamp) rather than the class name.
 */
export function createSqlMigration(
  name: string,
  statements: SqlMigrationStatements,
): new () => MigrationInterface {
  return class SqlMigration implements MigrationInterface {
    readonly name = name;

    async up(runner: QueryRunner): Promise<void> {
      for (const sql of statements.up) await runner.query(sql);
    }

    async down(runner: QueryRunner): Promise<void> {
      for (const sql of statements.down) await runner.query(sql);
    }
  };
}
