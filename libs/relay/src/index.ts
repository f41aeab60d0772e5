export { RelayModule } from './relay.module';
export { RELAY_METRICS_REGISTRY } from './relay.constants';
export type {
  ClassifiedEvent,
  ErrorClassifier,
  PollingOptions,
  RelayBroker,
  RelayKafkaClient,
  RelayModuleExtras,
  RelayModuleOptions,
  RelayNatsOptions,
  RelayTuningOptions,
  RetentionOptions,
  RetryOptions,
  TopicRoutingOptions,
} from './options/relay-options.interface';
export type { ErrorKind } from './errors/error-kind';
export { NoTopicError } from './errors/no-topic.error';
export { UnencodableEventError } from './errors/unencodable-event.error';
export { PublishTimeoutError } from './errors/publish-timeout.error';
export { RelaySchemaMissingError } from './errors/relay-schema-missing.error';
export { UnacknowledgedPartitionError } from './errors/unacknowledged-partition.error';
export { PlatformaticKafkaError } from './platformatic/platformatic-kafka.error';
export { JetStreamPublishError } from './jetstream/jetstream-publish.error';
export { RabbitMqPublishError } from './rabbitmq/rabbitmq-publish.error';
export type { RelayRabbitMqOptions } from './rabbitmq/rabbitmq.options';
export { RelayLoop } from './loop/relay.loop';
export type { RelayTotals } from './outcome/batch-outcome';
export type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from './publisher/relay-publisher.interface';
export type { PublisherEncoding, RelayCompression } from './publisher/compression';
export {
  dropRelaySchemaSql,
  relayObjectNames,
  relaySchemaSql,
  type RelayTableName,
} from './schema/relay-schema.sql';
export { createRelayMigration, type RelayMigrationOptions } from './schema/relay.migration';
export { RelayOperatorService } from './operator/relay-operator.service';
export type {
  LeasedOutcome,
  OperatorActor,
  ParkedEvent,
  ParkOutcome,
  RepublishOutcome,
  RepublishRange,
  RetryOutcome,
  SkipOutcome,
} from './operator/relay-operator.types';
export {
  RelayOverviewService,
  type PressureView,
  type RelayOverview,
} from './operator/relay-overview.service';
export type { RelayStats } from './store/relay-stats';
export { HousekeepingService } from './housekeeping/housekeeping.service';
export type { RelayMode, WalRelayOptions } from './options/wal-options';
export type { WalRelayState } from './wal/wal-relay';
export { WalModeUnavailableError } from './wal/wal-unavailable.error';
export { dropWalSchemaSql, walSchemaSql } from './wal/wal-schema.sql';
