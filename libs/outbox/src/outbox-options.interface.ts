import type { ExecutionContext } from '@nestjs/common';
import type { SqlExecutorFactory } from '@nest-outbox/core/internal';
import type { Registry } from 'prom-client';

/** W3C trace context of the current span, as returned by a `traceContext` hook. @publicApi */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** Options of `OutboxModule.forRoot()` / `forRootAsync()`, validated at start-up. @publicApi */
export interface OutboxModuleOptions {
  /** Schema of the outbox table (a lower-case SQL identifier). @default 'public' */
  schema?: string;
  /**
   * Back-pressure: read every second the state the relays publish (thresholds are
   * `RelayModule`'s `pressure` option); while it is `critical`, commands marked
   * `@OutboxTransactional({ critical: false })` are refused with `OutboxBackPressureError`.
   * @default false
   */
  pressure?: boolean;
  /** prom-client registry (default: the module's own) and name prefix, or `false`. @default { prefix: 'nest_outbox_outbox_' } */
  metrics?: { readonly registry?: Registry; readonly prefix?: string } | false;
  /** `@Idempotent()` commands: whose keys are whose, and how long they are kept. */
  idempotency?: OutboxIdempotencyOptions;
  /** Settings whose defaults need no touching. */
  tuning?: OutboxTuningOptions;
}

/** `idempotency` of `OutboxModuleOptions`. @publicApi */
export interface OutboxIdempotencyOptions {
  /**
   * The caller's scope (principal or tenant): keys are looked up per scope, so one caller's
   * key never replays another's answer. @default () => '' (one scope)
   */
  scope?: (context: ExecutionContext) => string;
  /** Keys and their answers are deleted this many milliseconds after their command (checked every minute by each process that ran one). @default 86400000 (24 h) */
  retentionMs?: number;
}

/** `tuning` of `OutboxModuleOptions`: settings whose defaults need no touching. @publicApi */
export interface OutboxTuningOptions {
  /** Name of the outbox table (a lower-case SQL identifier). @default 'outbox' */
  table?: string;
  /** Largest serialized payload `record()` accepts, in UTF-8 bytes. @default 1000000 */
  maxPayloadBytes?: number;
  /** Channel of the coalesced cross-process wake-up; `false`: none. @default 'nest_outbox' */
  notifyChannel?: string | false;
  /** At most one notification per this many milliseconds per process. @default 5 */
  notifyCoalesceMs?: number;
  /** The active trace context, put into the headers; `false`: none. @default the OpenTelemetry span */
  traceContext?: (() => TraceContext | undefined) | false;
  /** Apply the table's idempotent DDL at start-up, under an advisory lock. @default false */
  installSchema?: boolean;
  /** Refuse to start with `OutboxTableNotFoundError` when the table is missing. @default true */
  verifySchema?: boolean;
  /** How SQL runs in `TransactionHost.tx`, for a stack `sqlExecutorOf` does not know. @default sqlExecutorOf */
  sqlExecutor?: SqlExecutorFactory;
}

/** Options that shape the module itself (next to the options in `forRoot` and `forRootAsync`). @publicApi */
export interface OutboxModuleExtras {
  /** Register the module globally (the relay of the same application finds its wake-up only then). @default true */
  isGlobal?: boolean;
  /** Name of the `ClsPluginTransactional` connection the outbox writes through; omit for the default. */
  connectionName?: string;
}

/** Options after validation and defaults. @publicApi */
export interface ResolvedOutboxOptions
  extends Readonly<Required<Omit<OutboxTuningOptions, 'traceContext'>>> {
  readonly schema: string;
  /** `"schema"."table"`, safe to interpolate into SQL. */
  readonly qualifiedTable: string;
  readonly traceContext: (() => TraceContext | undefined) | undefined;
  readonly metrics: { readonly registry: Registry | undefined; readonly prefix: string } | false;
  readonly pressure: boolean;
  /** `table`: the keys' table, `"schema"."<table>_idempotency"`. */
  readonly idempotency: Readonly<Required<OutboxIdempotencyOptions>> & { readonly table: string };
  readonly connectionName: string | undefined;
}
