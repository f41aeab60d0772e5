/** DI token of the validated options (`ResolvedOutboxOptions`). @publicApi */
export const OUTBOX_OPTIONS = Symbol('nest-outbox:outbox-options');

/** DI token of the `TransactionHost` the outbox writes through. @internal */
export const OUTBOX_TRANSACTION_HOST = Symbol('nest-outbox:transaction-host');

/** Class metadata: the class has methods decorated with `@OutboxTransactional()`. @internal */
export const OUTBOX_TRANSACTIONAL_METHODS = 'nest-outbox:transactional-methods';

/** Instance property through which decorated methods reach their application's outbox. @internal */
export const OUTBOX_RUNNER = Symbol('nest-outbox:runner');

/** DI token of the outbox metrics' prom-client `Registry`; `undefined` without metrics. @publicApi */
export const OUTBOX_METRICS_REGISTRY = Symbol('nest-outbox:outbox-metrics-registry');
