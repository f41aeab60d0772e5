/** DI token of the validated, defaulted module options (`ResolvedInboxOptions`). @internal */
export const INBOX_OPTIONS = Symbol('nest-outbox:inbox-options');

/** DI token of the `TransactionHost` the inbox writes through (`connectionName`). @internal */
export const INBOX_TRANSACTION_HOST = Symbol('nest-outbox:inbox-transaction-host');

/**
 * DI token of the prom-client `Registry` the inbox's metrics are on: `metrics.registry`, or
 * by default a registry of the module's own (never the global one, so two apps in one
 * process do not collide). Expose it from your `/metrics` endpoint. @publicApi
 */
export const INBOX_METRICS_REGISTRY = Symbol('nest-outbox:inbox-metrics-registry');

/** Metadata key set by `@InboxHandler`. @internal */
export const INBOX_HANDLER_METADATA = 'nest-outbox:inbox-handler';

/** Name used in errors and logs. @internal */
export const INBOX_MODULE = 'InboxModule';

/** Default `metrics.prefix`: `nest_outbox_` and the module, as in the outbox and the relay. @internal */
export const INBOX_METRIC_PREFIX = 'nest_outbox_inbox_';
