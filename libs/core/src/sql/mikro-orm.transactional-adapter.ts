import {
  SqlTransactionalAdapter,
  type SqlTransactionOptions,
} from './transactional-adapter.interface';

/** The part of MikroORM's `EntityManager` the adapter uses. */
interface EntityManagerLike<Em> {
  transactional<T>(fn: (em: Em) => Promise<T>, options?: { isolationLevel?: string }): Promise<T>;
}

/**
 * `@nestjs-cls/transactional` adapter for MikroORM (SQL drivers): `TransactionHost.tx` is
 * the transaction's forked `EntityManager` (the injected one outside a transaction). Entities
 * persisted on it are flushed when the transaction commits.
 * @example
 * ```ts
 * new ClsPluginTransactional({ adapter: new TransactionalAdapterMikroOrm({ entityManagerToken: EntityManager }) })
 * ```
 * @publicApi
 */
export class TransactionalAdapterMikroOrm<
  Em extends EntityManagerLike<Em>,
> extends SqlTransactionalAdapter<Em, Em> {
  constructor(options: { entityManagerToken: unknown; defaultTxOptions?: SqlTransactionOptions }) {
    super(options.entityManagerToken, options.defaultTxOptions);
  }

  readonly optionsFactory = (em: Em) => ({
    wrapWithTransaction: (
      options: SqlTransactionOptions | undefined,
      fn: () => Promise<unknown>,
      setTx: (tx?: Em) => void,
    ) =>
      em.transactional(
        (fork) => {
          setTx(fork);
          return fn();
        },
        // MikroORM's IsolationLevel enum holds the same words in lower case.
        options?.isolationLevel ? { isolationLevel: options.isolationLevel.toLowerCase() } : {},
      ),
    getFallbackInstance: () => em,
  });
}
