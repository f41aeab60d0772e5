/** DI token of the validated, defaulted relay options (`ResolvedRelayOptions`). @publicApi */
export const RELAY_OPTIONS = Symbol('nest-outbox:relay-options');

/** DI token of the relay's own `pg` Pool. @publicApi */
export const RELAY_PG_POOL = Symbol('nest-outbox:relay-pg-pool');

/** DI token of the prom-client `Registry` the relay's metrics live in. @publicApi */
export const RELAY_METRICS_REGISTRY = Symbol('nest-outbox:relay-metrics-registry');

/** DI token of the relay's metrics (`RelayMetrics`). @internal */
export const RELAY_METRICS = Symbol('nest-outbox:relay-metrics');

/** DI token of the transport the relay publishes to (`RelayPublisher`). @publicApi */
export const RELAY_PUBLISHER = Symbol('nest-outbox:relay-publisher');

/** Name used in option errors and logs. */
export const RELAY_MODULE = 'RelayModule';
