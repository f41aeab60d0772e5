/**
 * What `@nestjs-cls/transactional` asks of an adapter (its `TransactionalAdapter`, written
 * structurally so that nest-outbox's core needs no import of it).
 * @internal
 */
export interface ClsTransactionalAdapter<TConnection, TTx, TOptions> {
  readonly connectionToken: unknown;
  readonly defaultTxOptions?: Partial<TOptions>;
  readonly optionsFactory: (connection: TConnection) => {
    wrapWithTransaction(
      options: TOptions | undefined,
      fn: () => Promise<unknown>,
      setTx: (tx?: TTx) => void,
    ): Promise<unknown>;
    getFallbackInstance(): TTx;
  };
}

/** The connection's DI token and default options of nest-outbox's adapters. @internal */
export abstract class SqlTransactionalAdapter<TConnection, TTx>
  implements ClsTransactionalAdapter<TConnection, TTx, SqlTransactionOptions>
{
  abstract readonly optionsFactory: ClsTransactionalAdapter<
    TConnection,
    TTx,
    SqlTransactionOptions
  >['optionsFactory'];

  constructor(
    readonly connectionToken: unknown,
    readonly defaultTxOptions?: Partial<SqlTransactionOptions>,
  ) {}
}

/** PostgreSQL's isolation levels, for checks of a level given at run time (it becomes SQL). @internal */
export const SQL_ISOLATION_LEVELS = [
  'READ UNCOMMITTED',
  'READ COMMITTED',
  'REPEATABLE READ',
  'SERIALIZABLE',
] as const;

/** PostgreSQL's isolation levels, as `SET TRANSACTION ISOLATION LEVEL` spells them. @publicApi */
export type SqlIsolationLevel = (typeof SQL_ISOLATION_LEVELS)[number];

/** Options of a transaction opened by the adapters of nest-outbox. @publicApi */
export interface SqlTransactionOptions {
  readonly isolationLevel?: SqlIsolationLevel;
}
