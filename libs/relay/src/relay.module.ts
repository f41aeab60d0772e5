import { Module, type Provider } from '@nestjs/common';
import { RelayClaimer } from './claim/relay.claimer';
import { RelayStatsService } from './health/relay-stats.service';
import { HousekeepingService } from './housekeeping/housekeeping.service';
import { RelayLoop } from './loop/relay.loop';
import { createRelayMetrics, type RelayMetrics } from './metrics/relay.metrics';
import { RelayOperatorService } from './operator/relay-operator.service';
import { RelayOverviewService } from './operator/relay-overview.service';
import { OutcomeRecorder } from './outcome/outcome.recorder';
import { BatchProcessor } from './publish/batch.processor';
import type { RelayModuleOptions } from './options/relay-options.interface';
import { resolveRelayOptions, type ResolvedRelayOptions } from './options/relay-options.resolver';
import { NatsJetStreamPublisher } from './jetstream/nats-jetstream.publisher';
import { PlatformaticKafkaPublisher } from './platformatic/platformatic-kafka.publisher';
import type { RelayPublisher } from './publisher/relay-publisher.interface';
import { KafkaPublisher } from './publisher/kafka.publisher';
import { RabbitMqPublisher } from './rabbitmq/rabbitmq.publisher';
import { createRelayPool, RelayPoolHolder } from './relay-pool.holder';
import {
  RELAY_METRICS,
  RELAY_METRICS_REGISTRY,
  RELAY_OPTIONS,
  RELAY_PG_POOL,
  RELAY_PUBLISHER,
} from './relay.constants';
import { RELAY_MODULE_OPTIONS, RelayConfigurableModule } from './relay.module-definition';
import { RelayFigures } from './store/relay-stats';
import { RelayStore } from './store/relay.store';
import { WalRelay } from './wal/wal-relay';

function brokerPublisher(o: ResolvedRelayOptions): RelayPublisher {
  if (o.nats) return new NatsJetStreamPublisher(o.nats, o.publishTimeoutMs);
  if (o.rabbitmq) return new RabbitMqPublisher(o.rabbitmq);
  return o.client === 'platformatic'
    ? new PlatformaticKafkaPublisher(o.raw.kafka!, o.compression)
    : new KafkaPublisher(o.raw.kafka!, o.raw.tuning?.producer, { compression: o.compression });
}

const providers: Provider[] = [
  {
    provide: RELAY_OPTIONS,
    useFactory: (raw: RelayModuleOptions) => resolveRelayOptions(raw),
    inject: [RELAY_MODULE_OPTIONS],
  },
  {
    provide: RELAY_PG_POOL,
    useFactory: (o: ResolvedRelayOptions) => createRelayPool(o.pool),
    inject: [RELAY_OPTIONS],
  },
  {
    provide: RELAY_METRICS,
    useFactory: (o: ResolvedRelayOptions) => createRelayMetrics(o),
    inject: [RELAY_OPTIONS],
  },
  {
    provide: RELAY_METRICS_REGISTRY,
    // `undefined` with `metrics: false` or without prom-client: no registry to scrape.
    useFactory: (metrics: RelayMetrics) => metrics.registry,
    inject: [RELAY_METRICS],
  },
  {
    provide: RELAY_PUBLISHER,
    useFactory: (o: ResolvedRelayOptions) => o.raw.tuning?.publisher ?? brokerPublisher(o),
    inject: [RELAY_OPTIONS],
  },
  RelayPoolHolder,
  RelayStore,
  RelayClaimer,
  OutcomeRecorder,
  BatchProcessor,
  RelayLoop,
  RelayStatsService,
  { provide: RelayFigures, useExisting: RelayStatsService },
  RelayOperatorService,
  RelayOverviewService,
  HousekeepingService,
  WalRelay,
];

/**
 * The relay: a leased, ordered, at-least-once publisher from the outbox table to Kafka. Runs
 * inside any Nest app (woken in memory by the writer) or as a standalone process.
 * @publicApi
 */
@Module({
  providers,
  exports: [
    RELAY_OPTIONS,
    RELAY_PUBLISHER,
    RELAY_METRICS_REGISTRY,
    RELAY_METRICS,
    RelayLoop,
    RelayOperatorService,
    RelayOverviewService,
    HousekeepingService,
    RelayStatsService,
    WalRelay,
  ],
})
export class RelayModule extends RelayConfigurableModule {}
