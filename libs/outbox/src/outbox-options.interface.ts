import type { SqlExecutorFactory } from '@nest-outbox/core/internal';
import type { Registry } from 'prom-client';

/**
 * W3C trace context of the current span, as returned by a `traceContext` hook.
 * @publicApi
 */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/**
 * Options of `OutboxModule.forRoot()` / `forRootAsync()`. Validated at start-up: a bad
 * value stops the application with an `InvalidOptionsError` naming the option.
 * @publicApi
 */
export interface OutboxModuleOptions {
  /**
   * Schema of the outbox table (a lower-case SQL identifier).
   * @default 'public'
   */
  schema?: string;
  /**
   * Name of the outbox table (a lower-case SQL identifier).
   * @default 'outbox'
   */
  table?: string;
  /**
   * Largest serialized payload accepted by `record()`, in bytes (UTF-8). Keep it under the
   * topic's `max.message.bytes`, or the relay will have to park the event.
   * @default 1000000
   */
  maxPayloadBytes?: number;
  /**
   * PostgreSQL channel on which relays in other processes are woken (coalesced, outside
   * the business transaction); `false` disables cross-process notifications (the
   * in-process `OUTBOX_WAKEUP` signal and the relay's polling still work).
   * @default DEFAULT_NOTIFY_CHANNEL ('nest_outbox')
   */
  notifyChannel?: string | false;
  /**
   * At most one notification per this many milliseconds per process.
   * @default 5
   */
  notifyCoalesceMs?: number;
  /**
   * Returns the active trace context, if any. Its `traceparent`/`tracestate` go into the
   * event's headers unless the caller passed its own; the relay's publish span links to it
   * and the consumer's handler span continues it. `false` stores none.
   * @default the active OpenTelemetry span when `@opentelemetry/api` (an optional peer) is
   *   installed; none otherwise
   */
  traceContext?: (() => TraceContext | undefined) | false;
  /**
   * Apply the outbox table's idempotent DDL (`outboxSchemaSql`) at start-up, under an
   * advisory lock so that instances starting together do not race. Prefer a migration
   * (`createOutboxMigration`) where the application has them.
   * @default false
   */
  installSchema?: boolean;
  /**
   * Check at start-up that the outbox table exists; a missing table stops the application
   * with `OutboxTableNotFoundError`. (Formerly `verifyTableOnStartup`.)
   * @default true
   */
  verifySchema?: boolean;
  /**
   * prom-client registry (one is created when absent; token `OUTBOX_METRICS_REGISTRY`) and
   * metric name prefix of the outbox's metrics (docs/METRICS.md), or `false` for none.
   * prom-client is an optional peer, loaded only when metrics are on.
   * @default { prefix: 'nest_outbox_outbox_' }
   */
  metrics?: { readonly registry?: Registry; readonly prefix?: string } | false;
  /**
   * Back-pressure: read, every second, the state the relay publishes (`ok`, `warn`,
   * `critical`, or `unknown` while no relay publishes it; thresholds are `RelayModule`'s
   * `pressure` option); while it is `critical`, commands marked
   * `@OutboxTransactional({ critical: false })` are refused with `OutboxBackPressureError`
   * before any write. `false`: nothing read, nothing refused.
   * @default false
   */
  pressure?: boolean;
  /**
   * How the outbox runs its SQL in the transaction `TransactionHost.tx` holds. Needed only
   * for a data stack `sqlExecutorOf` does not recognise.
   * @default sqlExecutorOf (TypeORM, Prisma, Drizzle node-postgres, Kysely, MikroORM, pg)
   */
  sqlExecutor?: SqlExecutorFactory;
}

/**
 * Options that shape the module itself (given next to the options in both `forRoot` and
 * `forRootAsync`).
 * @publicApi
 */
export interface OutboxModuleExtras {
  /**
   * Register the module globally. The relay of the same application finds the outbox's
   * in-process wake-up only when it is global.
   * @default true
   */
  isGlobal?: boolean;
  /**
   * Name of the `ClsPluginTransactional` connection (and so the data source) the outbox
   * writes through; omit for the default, unnamed one.
   */
  connectionName?: string;
}

/** Options after validation and defaults. @publicApi */
export interface ResolvedOutboxOptions {
  readonly schema: string;
  readonly table: string;
  /** `"schema"."table"`, safe to interpolate into SQL. */
  readonly qualifiedTable: string;
  readonly maxPayloadBytes: number;
  readonly notifyChannel: string | false;
  readonly notifyCoalesceMs: number;
  readonly traceContext: (() => TraceContext | undefined) | undefined;
  readonly installSchema: boolean;
  readonly verifySchema: boolean;
  readonly metrics: { readonly registry: Registry | undefined; readonly prefix: string } | false;
  readonly pressure: boolean;
  readonly sqlExecutor: SqlExecutorFactory;
  readonly connectionName: string | undefined;
}
