export { InboxModule } from './inbox.module';
export type {
  ExhaustedPolicy,
  InboxHandlerOptions,
  InboxMetricsOptions,
  InboxModuleExtras,
  InboxModuleOptions,
  InboxOptionsFactory,
  InboxRetentionOptions,
  InboxRetryOptions,
  InboxTuningOptions,
  VersionCheckMode,
} from './options/inbox-options.interface';
export { INBOX_METRICS_REGISTRY } from './inbox.constants';
export { InboxBatchHandler, InboxHandler } from './decorators/inbox-handler.decorator';
export { InboxEvent, InboxEvents } from './decorators/inbox-event.decorator';
export type { InboxOutcome } from './chunk/chunk';
export type { RejectionCode } from './envelope/envelope.decoder';
export { InboxConsumerRegistry } from './consumer/inbox-consumer.registry';
export type {
  ConsumerRecovery,
  ConsumerSnapshot,
  PoisonPause,
  UndecodableRecord,
} from './consumer/consumer-snapshot';
export { InboxHandlerSkippedError } from './errors/inbox-handler-skipped.error';
export { InboxMisuseError } from './errors/inbox-misuse.error';
export { InboxPermanentError } from './errors/inbox-permanent.error';
export { InboxRetentionTooShortError } from './errors/inbox-retention-too-short.error';
export { InboxSchemaMissingError } from './errors/inbox-schema-missing.error';
export { InboxVersionGapError } from './errors/inbox-version-gap.error';
export { UnexpectedRowCountError } from './errors/unexpected-row-count.error';
export { expectRowCount, type RowCountResult } from './support/expect-row-count';
export { idempotencyKey } from './support/idempotency-key';
export {
  dropInboxSchemaSql,
  inboxSchemaSql,
  type InboxTableNames,
} from './schema/inbox-schema.sql';
export { createInboxMigration, type InboxMigrationOptions } from './schema/inbox.migration';
export { partitionedInboxSchemaSql } from './partitions/partitioned-inbox.sql';
export { InboxKafkaServer, type InboxKafkaServerOptions } from './transport/inbox-kafka.server';
export { PlatformaticInboxServer } from './platformatic/platformatic-inbox.server';
export { InboxRmqServer, type InboxRmqServerOptions } from './rabbitmq/inbox-rmq.server';
export type { PlatformaticInboxServerOptions } from './platformatic/platformatic-inbox.options';
