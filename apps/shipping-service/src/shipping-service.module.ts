import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { InboxHealthIndicator, InboxModule } from '@nest-outbox/inbox';
import { OutboxModule } from '@nest-outbox/outbox';
import { RelayModule } from '@nest-outbox/relay';
import { ClsModule } from 'nestjs-cls';
import { SHIPPING_OUTBOX_TABLE, shippingServiceMigrations } from './database/shipping.migration';
import { HealthController } from './observability/health.controller';
import { MetricsController } from './observability/metrics.controller';
import { OrderEventsController } from './shipments/order-events.controller';
import { Shipment } from './shipments/shipment.entity';
import { SHIPMENT_AGGREGATE } from './shipments/shipment-events';
import { ShipmentsController } from './shipments/shipments.controller';
import { ShipmentsService } from './shipments/shipments.service';
import { SHIPPING_SERVICE_CONFIG, type ShippingServiceConfig } from './shipping-service.config';

/** The embedded relay of the shipping outbox (`shipment.*` events). */
function embeddedRelay(config: ShippingServiceConfig): DynamicModule {
  return RelayModule.forRoot({
    connection: { connectionString: config.databaseUrl, max: 3 },
    schema: config.schema,
    table: SHIPPING_OUTBOX_TABLE,
    kafka: { clientId: 'shipping-service-relay', brokers: config.kafkaBrokers },
    routing: { routes: { [SHIPMENT_AGGREGATE]: config.shipmentEventsTopic } },
    leaseMs: config.relayLeaseMs,
    publishTimeoutMs: Math.floor(config.relayLeaseMs / 2),
    backoff: { baseMs: 200, capMs: 5000 },
    statsIntervalMs: 1000,
  });
}

/**
 * The shipping service: a hybrid app whose Kafka handler projects order events into
 * shipments through the inbox, recording its own `shipment.*` events in the same transaction.
 */
@Module({})
export class ShippingServiceModule {
  static forRoot(config: ShippingServiceConfig): DynamicModule {
    return {
      module: ShippingServiceModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: config.databaseUrl,
          schema: config.schema,
          entities: [Shipment],
          migrations: shippingServiceMigrations(config.schema),
          migrationsRun: true,
          migrationsTableName: 'migrations',
          extra: { max: 10, application_name: 'shipping-service' },
        }),
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [TypeOrmModule],
              adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
            }),
          ],
        }),
        OutboxModule.forRoot({ schema: config.schema, table: SHIPPING_OUTBOX_TABLE }),
        InboxModule.forRoot({
          kafka: { clientId: 'shipping-service-inbox', brokers: config.kafkaBrokers },
          tables: { schema: config.schema },
        }),
        TerminusModule,
        ...(config.relayEmbedded ? [embeddedRelay(config)] : []),
      ],
      controllers: [
        OrderEventsController,
        ShipmentsController,
        HealthController,
        MetricsController,
      ],
      providers: [
        { provide: SHIPPING_SERVICE_CONFIG, useValue: config },
        ShipmentsService,
        InboxHealthIndicator,
      ],
    };
  }
}
