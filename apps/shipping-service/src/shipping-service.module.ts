import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { InboxModule } from '@nest-outbox/inbox';
import { InboxHealthIndicator } from '@nest-outbox/inbox/health';
import { OutboxModule } from '@nest-outbox/outbox';
import {
  embeddedRelayModule,
  SampleHealthController,
  sampleTypeOrmModule,
  transactionalClsModule,
} from '../../common/src';
import { SHIPPING_OUTBOX_TABLE, shippingServiceMigrations } from './database/shipping.migration';
import { inboxHealthCheck } from './observability/inbox-health.provider';
import { MetricsController } from './observability/metrics.controller';
import { OrderEventsController } from './shipments/order-events.controller';
import { Shipment } from './shipments/shipment.entity';
import { SHIPMENT_AGGREGATE } from './shipments/shipment-events';
import { ShipmentsController } from './shipments/shipments.controller';
import { ShipmentsService } from './shipments/shipments.service';
import { SHIPPING_SERVICE_CONFIG, type ShippingServiceConfig } from './shipping-service.config';

/** The embedded relay of the shipping outbox (`shipment.*` events). */
function embeddedRelay(config: ShippingServiceConfig): DynamicModule {
  return embeddedRelayModule(config, {
    table: SHIPPING_OUTBOX_TABLE,
    clientId: 'shipping-service-relay',
    routes: { [SHIPMENT_AGGREGATE]: config.shipmentEventsTopic },
  });
}

/**
 * The shipping service: a hybrid app whose Kafka handler projects order events into
 * shipments through the inbox, recording its own `shipment.*` events in the same transaction.
 * `/health` checks the database, the inbox's Kafka consumer and the embedded relay.
 */
@Module({})
export class ShippingServiceModule {
  static forRoot(config: ShippingServiceConfig): DynamicModule {
    return {
      module: ShippingServiceModule,
      imports: [
        sampleTypeOrmModule(config, {
          service: 'shipping-service',
          entities: [Shipment],
          migrations: shippingServiceMigrations(config.schema),
          poolMax: 10,
        }),
        transactionalClsModule(),
        OutboxModule.forRoot({ schema: config.schema, tuning: { table: SHIPPING_OUTBOX_TABLE } }),
        InboxModule.forRoot({
          kafka: { clientId: 'shipping-service-inbox', brokers: config.kafkaBrokers },
          schema: config.schema,
        }),
        TerminusModule,
        ...(config.relayEmbedded ? [embeddedRelay(config)] : []),
      ],
      controllers: [
        OrderEventsController,
        ShipmentsController,
        SampleHealthController,
        MetricsController,
      ],
      providers: [
        { provide: SHIPPING_SERVICE_CONFIG, useValue: config },
        ShipmentsService,
        InboxHealthIndicator,
        inboxHealthCheck,
      ],
    };
  }
}
