export { RelayModule } from './relay.module';
export {
  RELAY_METRICS_REGISTRY,
  RELAY_OPTIONS,
  RELAY_PG_POOL,
  RELAY_PUBLISHER,
} from './relay.constants';
export { RELAY_MODULE_OPTIONS } from './relay.module-definition';
export type {
  BackoffOptions,
  ClassifiedEvent,
  ErrorClassifier,
  ErrorKind,
  PollingOptions,
  RelayHooks,
  RelayModuleOptions,
  RelayStage,
  RetentionOptions,
  TopicRoutingOptions,
} from './options/relay-options.interface';
export { resolveRelayOptions, type ResolvedRelayOptions } from './options/relay-options.resolver';
export { parseTopicRoutes, TopicRouter } from './routing/topic-router';
export { classifyKafkaError, describeError } from './errors/error-classifier';
export { NoTopicError } from './errors/no-topic.error';
export { PublishTimeoutError } from './errors/publish-timeout.error';
export { RelaySchemaMissingError } from './errors/relay-schema-missing.error';
export { UnacknowledgedPartitionError } from './errors/unacknowledged-partition.error';
export { RelayLoop } from './loop/relay.loop';
export type { RelayTotals } from './outcome/batch-outcome';
export type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from './publisher/relay-publisher.interface';
export { KafkaPublisher, type KafkaRecordEncoder } from './publisher/kafka.publisher';
export { NullPublisher } from './publisher/null.publisher';
export {
  dropRelaySchemaSql,
  relaySchemaSql,
  relayObjectNames,
  type RelayTableName,
} from './schema/relay-schema.sql';
export { createRelayMigration, type RelayMigrationOptions } from './schema/relay.migration';
export type { RelayStats } from './store/relay-stats';
export { RelayMetrics } from './metrics/relay.metrics';
export { RelayHealthIndicator } from './health/relay.health-indicator';
export { RelayStatsService } from './health/relay-stats.service';
export { RelayOperatorService } from './operator/relay-operator.service';
export type {
  OperatorActor,
  ParkedEvent,
  RepublishOutcome,
  RepublishRange,
  RetryOutcome,
  SkipOutcome,
} from './operator/relay-operator.types';
export { HousekeepingService } from './housekeeping/housekeeping.service';
