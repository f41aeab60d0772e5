import { inTransaction, type TransactionClient, type TransactionPool } from '../in-transaction';
import {
  SQL_ISOLATION_LEVELS,
  SqlTransactionalAdapter,
  type SqlTransactionOptions,
} from './transactional-adapter.interface';

/** `BEGIN`, with the level checked against the four PostgreSQL knows (it becomes SQL text). */
function begin(options: SqlTransactionOptions | undefined): string {
  const level = options?.isolationLevel;
  if (level === undefined) return 'BEGIN';
  if (!SQL_ISOLATION_LEVELS.includes(level))
    throw new TypeError(`unknown isolation level ${String(level)}`);
  return `BEGIN ISOLATION LEVEL ${level}`;
}

/**
 * `@nestjs-cls/transactional` adapter for a plain node-postgres `Pool`: `TransactionHost.tx`
 * is the transaction's `PoolClient` (the pool itself outside a transaction).
 * @example
 * ```ts
 * new ClsPluginTransactional({ imports: [DbModule], adapter: new TransactionalAdapterPg({ poolToken: PG_POOL }) })
 * ```
 * @publicApi
 */
export class TransactionalAdapterPg<
  C extends TransactionClient,
  P extends TransactionPool<C>,
> extends SqlTransactionalAdapter<P, C | P> {
  constructor(options: { poolToken: unknown; defaultTxOptions?: SqlTransactionOptions }) {
    super(options.poolToken, options.defaultTxOptions);
  }

  readonly optionsFactory = (pool: P) => ({
    wrapWithTransaction: (
      options: SqlTransactionOptions | undefined,
      fn: () => Promise<unknown>,
      setTx: (tx?: C | P) => void,
    ) =>
      inTransaction(
        pool,
        (client: C) => {
          setTx(client);
          return fn();
        },
        begin(options),
      ),
    getFallbackInstance: () => pool,
  });
}
