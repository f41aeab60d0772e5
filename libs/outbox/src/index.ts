export { OutboxModule } from './outbox.module';
export { OutboxService } from './outbox.service';
export { OutboxPressureService } from './pressure/outbox-pressure.service';
export { OUTBOX_METRICS_REGISTRY } from './outbox.constants';
export { OutboxTransactional } from './outbox-transactional.decorator';
export { Idempotent } from './idempotency/idempotent.decorator';
export {
  OutboxIdempotency,
  type IdempotentAnswer,
  type IdempotentRequest,
} from './idempotency/outbox-idempotency.service';
export {
  IdempotencyKeyInvalidError,
  IdempotencyKeyReusedError,
  OutboxIdempotencyTableNotFoundError,
} from './idempotency/idempotency.errors';
export type {
  OutboxIdempotencyOptions,
  OutboxModuleExtras,
  OutboxModuleOptions,
  OutboxTuningOptions,
  ResolvedOutboxOptions,
  TraceContext,
} from './outbox-options.interface';
export type {
  OutboxEventInput,
  RecordedEvent,
  TransitionEventInput,
} from './event/outbox-event.interface';
export { outboxLockKey } from './event/lock-key';
export type { OutboxTransactionOptions } from './transaction/outbox-transaction-options.interface';
export type { TransitionSpec } from './transition/transition.interface';
export { NoActiveTransactionError } from './errors/no-active-transaction.error';
export { PayloadTooLargeError } from './errors/payload-too-large.error';
export { PayloadSerializationError } from './errors/payload-serialization.error';
export { InvalidTransitionError } from './errors/invalid-transition.error';
export { InvalidEventError } from './errors/invalid-event.error';
export { OutboxNotInitializedError } from './errors/outbox-not-initialized.error';
export { OutboxTableNotFoundError } from './errors/outbox-table-not-found.error';
export { OutboxDatabaseUnavailableError } from './errors/outbox-database-unavailable.error';
export { OutboxUniqueViolationError } from './errors/outbox-unique-violation.error';
export { OutboxBackPressureError } from './errors/outbox-back-pressure.error';
export { OutboxHttpExceptionFilter } from './http/outbox-http-exception.filter';
export { outboxSchemaSql, type OutboxTableName } from './schema/outbox-schema.sql';
export { createOutboxMigration, type OutboxMigrationOptions } from './schema/outbox.migration';
export { partitionedOutboxSchemaSql } from './partitions/partitioned-outbox.sql';
