import { InvalidOptionsError } from './nest-outbox.error';
import { sqlIdentifier } from './sql-identifier';

/** Options of `createOutboxMigration` and `createRelayMigration` (`table` is the outbox table). @publicApi */
export interface MigrationOptions {
  /** @default 'public' */
  readonly schema?: string;
  /** @default the library's table name ('outbox') */
  readonly table?: string;
  /** 13-digit millisecond timestamp TypeORM orders migrations by. @default the version of the library's DDL */
  readonly timestamp?: number;
}

interface MigrationQueryRunner {
  query(sql: string): Promise<unknown>;
}

/** A TypeORM migration class as the factories return it (assignable to `MigrationInterface`). @publicApi */
export type SqlMigrationClass = new () => {
  readonly name: string;
  up(runner: MigrationQueryRunner): Promise<void>;
  down(runner: MigrationQueryRunner): Promise<void>;
};

function pascal(value: string): string {
  return value.replace(/(?:^|_+)([a-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/_/g, '');
}

/**
 * `NestOutbox` + kind + schema + table (PascalCase) + timestamp, e.g.
 * `NestOutboxRelayAppOutbox1764633600001` (one per schema).
 * @throws InvalidOptionsError when the schema or table is not a plain SQL identifier
 * @publicApi
 */
export function migrationName(
  module: string,
  kind: string,
  names: { readonly schema: string; readonly table: string },
  timestamp: number,
): string {
  sqlIdentifier(module, 'schema', names.schema);
  sqlIdentifier(module, 'table', names.table);
  if (!Number.isSafeInteger(timestamp) || String(timestamp).length !== 13)
    throw new InvalidOptionsError(
      module,
      'timestamp',
      `must be a 13-digit millisecond timestamp (got ${timestamp}), for example ${Date.UTC(2026, 0, 1)}`,
    );
  return `NestOutbox${kind}${pascal(names.schema)}${pascal(names.table)}${timestamp}`;
}

/** A TypeORM migration class named `name` (property and class name: TypeORM reads either) running fixed statements. @publicApi */
export function createSqlMigration(
  name: string,
  statements: { readonly up: readonly string[]; readonly down: readonly string[] },
): SqlMigrationClass {
  const migration = class {
    readonly name = name;

    async up(runner: MigrationQueryRunner): Promise<void> {
      for (const sql of statements.up) await runner.query(sql);
    }

    async down(runner: MigrationQueryRunner): Promise<void> {
      for (const sql of statements.down) await runner.query(sql);
    }
  };
  Object.defineProperty(migration, 'name', { value: name });
  return migration;
}

/** What a library's migration of one table is made of. @publicApi */
export interface TableMigrationSpec {
  /** Named in option errors, for example `RelayModule`. */
  readonly module: string;
  /** Part of the migration's name after `NestOutbox` (`''` for the outbox, `Relay`, ...). */
  readonly kind: string;
  readonly defaults: { readonly table: string; readonly timestamp: number };
  up(name: { schema: string; table: string }): readonly string[];
  down(name: { schema: string; table: string }): readonly string[];
}

/** The migration of a library whose objects hang on one table, `MigrationOptions` defaulted. @publicApi */
export function createTableMigration(
  spec: TableMigrationSpec,
  options: MigrationOptions = {},
): SqlMigrationClass {
  const name = { schema: options.schema ?? 'public', table: options.table ?? spec.defaults.table };
  const timestamp = options.timestamp ?? spec.defaults.timestamp;
  return createSqlMigration(migrationName(spec.module, spec.kind, name, timestamp), {
    up: spec.up(name),
    down: spec.down(name),
  });
}
