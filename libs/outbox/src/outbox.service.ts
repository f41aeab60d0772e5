import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { InvalidOptionsError } from '@nest-outbox/core';
import { OUTBOX_WAKEUP, OutboxWakeup, SQL_ISOLATION_LEVELS } from '@nest-outbox/core/internal';
import type { TransactionalAdapter, TransactionHost } from '@nestjs-cls/transactional';
import { ClsService } from 'nestjs-cls';
import { NoActiveTransactionError } from './errors/no-active-transaction.error';
import { OutboxDatabaseUnavailableError } from './errors/outbox-database-unavailable.error';
import { OutboxUniqueViolationError } from './errors/outbox-unique-violation.error';
import { OutboxMetrics } from './metrics/outbox.metrics';
import { OutboxPressureService } from './pressure/outbox-pressure.service';
import type {
  OutboxEventInput,
  OutboxRow,
  RecordedEvent,
  TransitionEventInput,
} from './event/outbox-event.interface';
import { serializeOutboxEvent } from './event/outbox-event.serializer';
import { createOutboxNotifier } from './notify/notify-sender';
import type { OutboxNotifier } from './notify/outbox-notifier';
import { OUTBOX_OPTIONS, OUTBOX_TRANSACTION_HOST } from './outbox.constants';
import type { ResolvedOutboxOptions } from './outbox-options.interface';
import { installOutboxSchema, verifyOutboxTable } from './schema/outbox-schema.installer';
import { OutboxStore } from './store/outbox.store';
import { ForeignCommitListener } from './transaction/foreign-commit.listener';
import type { OutboxTransactionOptions } from './transaction/outbox-transaction-options.interface';
import { OutboxUnit } from './transaction/outbox-unit';
import { TransitionRunner } from './transition/transition.runner';
import type { TransitionSpec } from './transition/transition.interface';

/** The application's host, whatever its adapter: `tx` is that data stack's own object. */
type AnyHost = TransactionHost<TransactionalAdapter<unknown, unknown, unknown>>;

function toRecorded(row: OutboxRow): RecordedEvent {
  const { payloadJson: _payload, lockKey: _key, ...recorded } = row;
  return recorded;
}

/**
 * Records events in the caller's PostgreSQL transaction and wakes relays after commit. Inside
 * `@OutboxTransactional()` / `transaction(fn)` the events are written in one INSERT at the end
 * of the outermost call; inside a plain nestjs-cls transaction, `record()` inserts at once.
 * @publicApi
 */
@Injectable()
export class OutboxService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('OutboxService');
  /** CLS key of the current unit; per instance, so two applications never share one. */
  private readonly unitKey = Symbol('nest-outbox:unit');
  private readonly store: OutboxStore;
  private readonly transitions: TransitionRunner;
  private notifier: OutboxNotifier | undefined;
  private readonly foreignCommits = new ForeignCommitListener(() => this.afterCommit());

  constructor(
    @Inject(OUTBOX_OPTIONS) readonly options: ResolvedOutboxOptions,
    @Inject(OUTBOX_TRANSACTION_HOST) private readonly host: AnyHost,
    private readonly cls: ClsService,
    @Inject(OUTBOX_WAKEUP) private readonly wakeup: OutboxWakeup,
    private readonly metrics: OutboxMetrics,
    private readonly pressure: OutboxPressureService,
  ) {
    this.store = new OutboxStore(options.qualifiedTable, metrics);
    this.transitions = new TransitionRunner(options.qualifiedTable, metrics);
  }

  async onModuleInit(): Promise<void> {
    // Outside any CLS context (start-up), `tx` is the adapter's non-transactional instance.
    const fallback = this.host.tx;
    const sql = this.options.sqlExecutor(fallback);
    this.notifier = createOutboxNotifier(fallback, sql, this.options, this.logger);
    if (this.options.installSchema) await installOutboxSchema(this.host, this.options);
    if (this.options.verifySchema) await verifyOutboxTable(sql, this.options.qualifiedTable);
  }

  async onModuleDestroy(): Promise<void> {
    this.foreignCommits.detach();
    await this.notifier?.close();
  }

  /**
   * Records an event in the active transaction; validation and the size check throw now (the
   * change rolls back). Always `await` it: in a transaction the outbox did not open, the row
   * is inserted before it resolves.
   * @throws NoActiveTransactionError when no transaction is active
   * @throws PayloadSerializationError, PayloadTooLargeError, InvalidEventError
   */
  record<TPayload>(event: OutboxEventInput<TPayload>): Promise<RecordedEvent> {
    if (!this.host.isTransactionActive()) throw new NoActiveTransactionError('record');
    const row = serializeOutboxEvent(event, this.options);
    const tx = this.host.tx;
    const unit = this.currentUnit(tx);
    if (unit) {
      unit.rows.push(row);
      return Promise.resolve(toRecorded(row));
    }
    // Not ours to flush (a plain nestjs-cls transaction, or a savepoint inside ours whose
    // rollback must take the event with it): insert now, in that transaction.
    this.foreignCommits.track(tx);
    return this.store.insertRows(this.options.sqlExecutor(tx), [row]).then(() => toRecorded(row));
  }

  /**
   * The function form of `@OutboxTransactional()`: joins the active outbox transaction, else
   * the active nestjs-cls transaction, else opens one.
   * @throws OutboxDatabaseUnavailableError (retryable) when PostgreSQL was unreachable
   * @throws OutboxUniqueViolationError when a write in the transaction it opened hit a unique constraint
   * @throws OutboxBackPressureError (retryable, before any write) for `critical: false` under critical pressure
   */
  async transaction<R>(fn: () => Promise<R> | R, options?: OutboxTransactionOptions): Promise<R> {
    if (this.host.isTransactionActive()) {
      if (this.currentUnit(this.host.tx)) return fn();
      return this.runInForeignTransaction(fn);
    }
    const level = options?.isolationLevel;
    if (level !== undefined && !SQL_ISOLATION_LEVELS.includes(level)) {
      const problem = `must be one of ${SQL_ISOLATION_LEVELS.join(', ')}`;
      throw new InvalidOptionsError('OutboxTransactional', 'isolationLevel', problem);
    }
    this.pressure.admit(options?.command ?? 'transaction', options?.critical ?? true);
    const done = this.metrics.transactionSeconds.startTimer();
    let unit: OutboxUnit | undefined;
    const body = async () => {
      const sql = `SET TRANSACTION ISOLATION LEVEL ${level}`;
      if (level) await this.options.sqlExecutor(this.host.tx).query(sql, []);
      unit = this.openUnit();
      const result = await fn();
      await this.flush(unit);
      return result;
    };
    const result = await this.host.withTransaction(body).catch((error: unknown) => {
      done({ outcome: 'rolled_back' });
      throw OutboxUniqueViolationError.wrap(OutboxDatabaseUnavailableError.wrap(error));
    });
    done({ outcome: 'committed' });
    if (unit?.hasEvents()) this.afterCommit();
    return result;
  }

  /**
   * Conditional transition in the active transaction; record the event after it, with
   * `aggregateVersion` = the returned version.
   * @returns the row's new version
   * @throws InvalidTransitionError when no row was in an expected state
   * @throws NoActiveTransactionError when no transaction is active
   */
  async transition(spec: TransitionSpec): Promise<number> {
    if (!this.host.isTransactionActive()) throw new NoActiveTransactionError('transition');
    return this.transitions.run(this.options.sqlExecutor(this.host.tx), spec);
  }

  /**
   * `transition()` then `record()` in one statement, with the same guarantees; the event is
   * written now, after those recorded earlier in the call. `spec.id` must identify one row.
   * @returns the recorded event, with `aggregateVersion` = the row's new version
   * @throws InvalidTransitionError when no row was in an expected state (nothing written)
   * @throws NoActiveTransactionError when no transaction is active
   * @throws PayloadSerializationError, PayloadTooLargeError, InvalidEventError (before any SQL)
   */
  async transitionAndRecord<TPayload>(
    spec: TransitionSpec,
    event: TransitionEventInput<TPayload>,
  ): Promise<RecordedEvent> {
    if (!this.host.isTransactionActive()) throw new NoActiveTransactionError('transitionAndRecord');
    // The version comes from the UPDATE; 0 only satisfies validation and is never written.
    const row = serializeOutboxEvent({ ...event, aggregateVersion: 0 }, this.options);
    const tx = this.host.tx;
    const sql = this.options.sqlExecutor(tx);
    const unit = this.currentUnit(tx);
    if (unit && unit.rows.length > 0) {
      // Events recorded before this one in the unit get the smaller ids.
      unit.written = true;
      await this.store.insertRows(sql, unit.rows.splice(0));
    }
    const version = await this.transitions.run(sql, spec, row);
    if (unit) unit.written = true;
    else this.foreignCommits.track(tx);
    return { ...toRecorded(row), aggregateVersion: version };
  }

  /** True inside a transaction in which `record()` may be called. */
  isTransactionActive(): boolean {
    return this.host.isTransactionActive();
  }

  private currentUnit(tx: unknown): OutboxUnit | undefined {
    const unit = this.cls.isActive()
      ? this.cls.get<OutboxUnit | undefined>(this.unitKey)
      : undefined;
    return unit?.accepts(tx) ? unit : undefined;
  }

  private openUnit(): OutboxUnit {
    const unit = new OutboxUnit(this.host.tx);
    this.cls.set(this.unitKey, unit);
    return unit;
  }

  private async flush(unit: OutboxUnit): Promise<void> {
    unit.closed = true;
    await this.store.insertRows(this.options.sqlExecutor(unit.tx), unit.rows);
  }

  /** A decorated call inside someone else's transaction: buffer, flush at its end. */
  private runInForeignTransaction<R>(fn: () => Promise<R> | R): Promise<R> {
    return this.cls.run({ ifNested: 'inherit' }, async () => {
      const unit = this.openUnit();
      const result = await fn();
      await this.flush(unit);
      if (unit.hasEvents()) this.foreignCommits.track(unit.tx);
      return result;
    });
  }

  private afterCommit(): void {
    this.wakeup.signal();
    this.notifier?.hint();
  }
}
