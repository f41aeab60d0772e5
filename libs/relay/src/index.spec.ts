import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { barrelExports, internalExports } from '@test/support';

describe('@nest-outbox/relay public barrel', () => {
  it('exports exactly this list (any change to the public API shows here as a diff)', () => {
    expect(barrelExports('libs/relay/src/index.ts')).toMatchInlineSnapshot(`
     [
       "interface ClassifiedEvent",
       "function createRelayMigration",
       "function dropRelaySchemaSql",
       "function dropWalSchemaSql",
       "type ErrorClassifier",
       "type ErrorKind",
       "class HousekeepingService",
       "class JetStreamPublishError",
       "interface LeasedOutcome",
       "class NoTopicError",
       "interface OperatorActor",
       "interface ParkedEvent",
       "type ParkOutcome",
       "class PlatformaticKafkaError",
       "interface PollingOptions",
       "interface PressureView",
       "interface PublishAck",
       "interface PublisherEncoding",
       "interface PublishRecord",
       "class PublishTimeoutError",
       "class RabbitMqPublishError",
       "const RELAY_METRICS_REGISTRY",
       "type RelayBroker",
       "type RelayCompression",
       "type RelayKafkaClient",
       "class RelayLoop",
       "type RelayMigrationOptions",
       "type RelayMode",
       "class RelayModule",
       "interface RelayModuleExtras",
       "interface RelayModuleOptions",
       "type RelayNatsOptions",
       "function relayObjectNames",
       "class RelayOperatorService",
       "interface RelayOverview",
       "class RelayOverviewService",
       "interface RelayPublisher",
       "interface RelayRabbitMqOptions",
       "class RelaySchemaMissingError",
       "function relaySchemaSql",
       "interface RelayStats",
       "interface RelayTableName",
       "interface RelayTotals",
       "interface RelayTuningOptions",
       "interface RepublishOutcome",
       "type RepublishRange",
       "interface RetentionOptions",
       "interface RetryOptions",
       "type RetryOutcome",
       "type SkipOutcome",
       "interface TopicRoutingOptions",
       "class UnacknowledgedPartitionError",
       "class UnencodableEventError",
       "class WalModeUnavailableError",
       "interface WalRelayOptions",
       "interface WalRelayState",
       "function walSchemaSql",
     ]
    `);
  });

  it('re-exports no name of another package (its emitted types need no internal entry point)', () => {
    expect(readFileSync(join(__dirname, 'index.ts'), 'utf8')).not.toMatch(/from '@nest-outbox\//);
  });

  it('exports nothing tagged @internal', () => {
    expect(internalExports('libs/relay/src/index.ts')).toEqual([]);
  });
});
