import {
  SqlTransactionalAdapter,
  type SqlIsolationLevel,
  type SqlTransactionOptions,
} from './transactional-adapter.interface';

/** The part of a `Kysely` instance the adapter uses. */
interface KyselyLike<Tx> {
  transaction(): KyselyTransactionBuilder<Tx>;
}
interface KyselyTransactionBuilder<Tx> {
  setIsolationLevel(level: Lowercase<SqlIsolationLevel>): KyselyTransactionBuilder<Tx>;
  execute<T>(fn: (trx: Tx) => Promise<T>): Promise<T>;
}

/**
 * `@nestjs-cls/transactional` adapter for Kysely: `TransactionHost.tx` is the
 * `Transaction` (the `Kysely` instance outside a transaction).
 * @example
 * ```ts
 * new ClsPluginTransactional({ imports: [DbModule], adapter: new TransactionalAdapterKysely({ kyselyToken: KYSELY }) })
 * ```
 * @publicApi
 */
export class TransactionalAdapterKysely<
  Db extends KyselyLike<Tx>,
  Tx = unknown,
> extends SqlTransactionalAdapter<Db, Db | Tx> {
  constructor(options: { kyselyToken: unknown; defaultTxOptions?: SqlTransactionOptions }) {
    super(options.kyselyToken, options.defaultTxOptions);
  }

  readonly optionsFactory = (db: Db) => ({
    wrapWithTransaction: (
      options: SqlTransactionOptions | undefined,
      fn: () => Promise<unknown>,
      setTx: (tx?: Db | Tx) => void,
    ) => {
      let builder = db.transaction();
      const level = options?.isolationLevel;
      if (level)
        builder = builder.setIsolationLevel(level.toLowerCase() as Lowercase<SqlIsolationLevel>);
      return builder.execute((trx) => {
        setTx(trx);
        return fn();
      });
    },
    getFallbackInstance: () => db,
  });
}
