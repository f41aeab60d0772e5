import { NestOutboxError } from '../nest-outbox.error';

/**
 * The one port between nest-outbox and the application's data stack: run one
 * parameterised statement (`$1`, `$2`, ...) in the current transaction and return its rows.
 * `name` asks for a prepared statement where the driver has them (node-postgres); other
 * drivers ignore it.
 * @publicApi
 */
export interface SqlExecutor {
  query<T = Record<string, unknown>>(
    text: string,
    values: readonly unknown[],
    name?: string,
  ): Promise<T[]>;
}

/** Turns `TransactionHost.tx` into a `SqlExecutor` (option `sqlExecutor`, for a stack `sqlExecutorOf` does not know). @publicApi */
export type SqlExecutorFactory = (tx: unknown) => SqlExecutor;

/** True when the relation `qualifiedName` exists. @internal */
export async function relationExists(sql: SqlExecutor, qualifiedName: string): Promise<boolean> {
  const rows = await sql.query<{ oid: string | null }>('SELECT to_regclass($1)::text AS oid', [
    qualifiedName,
  ]);
  return !!rows[0]?.oid;
}

/** `TransactionHost.tx` is of no data stack nest-outbox knows. @publicApi */
export class UnknownDataStackError extends NestOutboxError {
  constructor(kind: string) {
    super(
      `TransactionHost.tx (${kind}) is no TypeORM EntityManager, Prisma client, Drizzle ` +
        'node-postgres database, Kysely instance, MikroORM EntityManager nor pg client/pool: ' +
        'pass `sqlExecutor: (tx) => ({ query: (text, values) => ... })` to the module',
    );
  }
}

type Rows = Record<string, unknown>[];
type Fn = (...args: never[]) => unknown;
interface PgQueryable {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: Rows }>;
}
interface TypeOrmManager {
  readonly queryRunner?: { databaseConnection?: unknown; query: Fn };
  readonly connection: { driver: { master?: unknown } };
  query(text: string, values: unknown[]): Promise<unknown>;
}

const has = (value: unknown, key: string): boolean =>
  typeof (value as Record<string, unknown> | null)?.[key] === 'function';

function isPg(value: unknown): value is PgQueryable {
  return has(value, 'query') && (has(value, 'release') || has(value, 'connect'));
}

function pgExecutor(pg: PgQueryable): SqlExecutor {
  return {
    query: async <T>(text: string, values: readonly unknown[], name?: string) =>
      (await pg.query({ name, text, values: [...values] })).rows as T[],
  };
}

/** TypeORM: straight to the transaction's node-postgres client (named, prepared). */
function typeOrmExecutor(tx: TypeOrmManager): SqlExecutor {
  const client = tx.queryRunner?.databaseConnection;
  if (isPg(client)) return pgExecutor(client);
  return {
    query: async <T>(text: string, values: readonly unknown[]) => {
      if (!tx.queryRunner) return (await tx.query(text, [...values])) as T[];
      const run = tx.queryRunner.query as (t: string, v: unknown[], s: true) => Promise<unknown>;
      return ((await run(text, [...values], true)) as { records?: T[] }).records ?? [];
    },
  };
}

/** Kysely: a raw compiled query, as `CompiledQuery.raw` builds it (no import of kysely). */
function kyselyExecutor(db: {
  executeQuery(query: object): Promise<{ rows: unknown[] }>;
}): SqlExecutor {
  return {
    query: async <T>(sql: string, parameters: readonly unknown[]) => {
      const query = { kind: 'RawNode', sqlFragments: [sql], parameters: [] };
      const compiled = { sql, parameters, query, queryId: { queryId: 'nest-outbox' } };
      return (await db.executeQuery(compiled)).rows as T[];
    },
  };
}

/** knex's client (a transaction's hands out the transaction's connection). */
interface KnexClient {
  acquireConnection(): Promise<PgQueryable>;
  releaseConnection(connection: PgQueryable): Promise<unknown>;
}

/** MikroORM 6: straight to knex's node-postgres connection (knex's raw queries would inline values and expand arrays). */
function mikroOrmExecutor(em: {
  getConnection(): { getKnex(): { client: KnexClient } };
  getTransactionContext(): { client: KnexClient } | undefined;
}): SqlExecutor {
  return {
    query: async <T>(text: string, values: readonly unknown[], name?: string) => {
      const client = (em.getTransactionContext() ?? em.getConnection().getKnex()).client;
      const connection = await client.acquireConnection();
      try {
        return await pgExecutor(connection).query<T>(text, values, name);
      } finally {
        await client.releaseConnection(connection);
      }
    },
  };
}

/**
 * The `SqlExecutor` of `tx`, recognised by shape: TypeORM, Prisma, Drizzle (node-postgres),
 * Kysely, MikroORM, or a node-postgres `Pool` / `PoolClient` / `Client`.
 * @throws UnknownDataStackError for anything else
 * @publicApi
 */
export function sqlExecutorOf(tx: unknown): SqlExecutor {
  const value = tx as Record<string, unknown> | null;
  if (has(value, 'getConnection') && has(value, 'getTransactionContext')) {
    return mikroOrmExecutor(value as unknown as Parameters<typeof mikroOrmExecutor>[0]);
  }
  if (has(value, 'getRepository') && 'connection' in value!) {
    return typeOrmExecutor(value as unknown as TypeOrmManager);
  }
  if (has(value, '$queryRawUnsafe')) {
    const prisma = value as unknown as {
      $queryRawUnsafe(t: string, ...v: unknown[]): Promise<unknown>;
    };
    return {
      query: async <T>(text: string, values: readonly unknown[]) =>
        (await prisma.$queryRawUnsafe(text, ...values)) as T[],
    };
  }
  const session = (value?.session as { client?: unknown } | undefined)?.client;
  if (has(value, 'execute') && isPg(session)) return pgExecutor(session);
  if (has(value, 'executeQuery') && has(value, 'getExecutor')) {
    return kyselyExecutor(value as unknown as Parameters<typeof kyselyExecutor>[0]);
  }
  if (isPg(value)) return pgExecutor(value);
  throw new UnknownDataStackError(
    value === null
      ? 'null'
      : typeof tx === 'object'
        ? (value.constructor?.name ?? 'object')
        : typeof tx,
  );
}
