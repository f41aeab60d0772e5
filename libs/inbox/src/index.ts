export { InboxModule } from './inbox.module';
export { INBOX_ASYNC_OPTIONS_TYPE, INBOX_OPTIONS_TYPE } from './inbox.module-definition';
export type {
  ExhaustedPolicy,
  InboxHandlerOptions,
  InboxModuleOptions,
  InboxOptionsFactory,
  InboxRetentionOptions,
  InboxRetryOptions,
  InboxTableNames,
  VersionCheckMode,
} from './inbox.options';
export { INBOX_FAULT_ENV, INBOX_METRICS_REGISTRY } from './inbox.constants';
export { InboxHandler } from './handler/inbox-handler.decorator';
export { InboxEvent } from './handler/inbox-event.decorator';
export type { InboxOutcome } from './handler/inbox.executor';
export type { RejectionCode } from './envelope/envelope.decoder';
export { InboxConsumerRegistry } from './consumer/inbox-consumer.registry';
export type { ConsumerRecovery, ConsumerSnapshot, PoisonPause } from './consumer/consumer.session';
export { InboxLifecycle } from './inbox.lifecycle';
export { InboxMetrics } from './metrics/inbox.metrics';
export {
  InboxMisuseError,
  InboxPermanentError,
  InboxRetentionTooShortError,
  InboxVersionGapError,
  UnexpectedRowCountError,
} from './errors/inbox.errors';
export { expectRowCount, type RowCountResult } from './support/expect-row-count';
export { idempotencyKey } from './support/idempotency-key';
export { dropInboxSchemaSql, inboxSchemaSql } from './schema/inbox-schema.sql';
export { createInboxMigration } from './schema/inbox.migration';
export { InboxKafkaServer, type InboxKafkaServerOptions } from './transport/inbox-kafka.server';
