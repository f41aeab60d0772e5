import { barrelExports, internalExports } from '@test/support';

describe('@nest-outbox/outbox public barrel', () => {
  it('exports exactly this list (any change to the public API shows here as a diff)', () => {
    expect(barrelExports('libs/outbox/src/index.ts')).toMatchInlineSnapshot(`
     [
       "function createOutboxMigration",
       "class IdempotencyKeyInvalidError",
       "class IdempotencyKeyReusedError",
       "function Idempotent",
       "interface IdempotentAnswer",
       "interface IdempotentRequest",
       "class InvalidEventError",
       "class InvalidTransitionError",
       "class NoActiveTransactionError",
       "const OUTBOX_METRICS_REGISTRY",
       "class OutboxBackPressureError",
       "class OutboxDatabaseUnavailableError",
       "interface OutboxEventInput",
       "class OutboxHttpExceptionFilter",
       "class OutboxIdempotency",
       "interface OutboxIdempotencyOptions",
       "class OutboxIdempotencyTableNotFoundError",
       "function outboxLockKey",
       "type OutboxMigrationOptions",
       "class OutboxModule",
       "interface OutboxModuleExtras",
       "interface OutboxModuleOptions",
       "class OutboxNotInitializedError",
       "class OutboxPressureService",
       "function outboxSchemaSql",
       "class OutboxService",
       "interface OutboxTableName",
       "class OutboxTableNotFoundError",
       "function OutboxTransactional",
       "interface OutboxTransactionOptions",
       "interface OutboxTuningOptions",
       "class OutboxUniqueViolationError",
       "function partitionedOutboxSchemaSql",
       "class PayloadSerializationError",
       "class PayloadTooLargeError",
       "interface RecordedEvent",
       "interface ResolvedOutboxOptions",
       "interface TraceContext",
       "type TransitionEventInput",
       "interface TransitionSpec",
     ]
    `);
  });

  it('exports nothing tagged @internal', () => {
    expect(internalExports('libs/outbox/src/index.ts')).toEqual([]);
  });
});
