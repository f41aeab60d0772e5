import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { OutboxModule } from '@nest-outbox/outbox';
import { RelayModule } from '@nest-outbox/relay';
import { ClsModule } from 'nestjs-cls';
import { ORDERS_OUTBOX_TABLE, orderServiceMigrations } from './database/orders.migration';
import { HealthController } from './observability/health.controller';
import { MetricsController } from './observability/metrics.controller';
import { OrderMetrics } from './observability/order.metrics';
import { ORDER_SERVICE_CONFIG, type OrderServiceConfig } from './order-service.config';
import { Order } from './orders/order.entity';
import { ORDER_AGGREGATE } from './orders/order-events';
import { OrdersController } from './orders/orders.controller';
import { OrdersService } from './orders/orders.service';
import { ReconciliationController } from './reconciliation/reconciliation.controller';
import { ReconciliationJob } from './reconciliation/reconciliation.job';
import { ReconciliationService } from './reconciliation/reconciliation.service';
import { ShippingClient } from './reconciliation/shipping.client';

/** The embedded relay: publishes this service's outbox, woken in memory after each commit. */
function embeddedRelay(config: OrderServiceConfig): DynamicModule {
  return RelayModule.forRoot({
    connection: { connectionString: config.databaseUrl, max: 3 },
    schema: config.schema,
    table: ORDERS_OUTBOX_TABLE,
    kafka: { clientId: 'order-service-relay', brokers: config.kafkaBrokers },
    routing: { routes: { [ORDER_AGGREGATE]: config.orderEventsTopic } },
    leaseMs: config.relayLeaseMs,
    publishTimeoutMs: Math.floor(config.relayLeaseMs / 2),
    backoff: { baseMs: 200, capMs: 5000 },
    statsIntervalMs: 1000,
  });
}

/**
 * The order service: orders over PostgreSQL (TypeORM), their events in the outbox of the
 * same transaction, and (unless `RELAY_EMBEDDED=false`) the relay publishing them.
 */
@Module({})
export class OrderServiceModule {
  static forRoot(config: OrderServiceConfig): DynamicModule {
    return {
      module: OrderServiceModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: config.databaseUrl,
          schema: config.schema,
          entities: [Order],
          migrations: orderServiceMigrations(config.schema),
          migrationsRun: true,
          migrationsTableName: 'migrations',
          extra: { max: 20, application_name: 'order-service' },
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
        OutboxModule.forRoot({ schema: config.schema, table: ORDERS_OUTBOX_TABLE }),
        TerminusModule,
        ...(config.relayEmbedded ? [embeddedRelay(config)] : []),
      ],
      controllers: [
        OrdersController,
        ReconciliationController,
        HealthController,
        MetricsController,
      ],
      providers: [
        { provide: ORDER_SERVICE_CONFIG, useValue: config },
        OrdersService,
        OrderMetrics,
        ShippingClient,
        ReconciliationService,
        ReconciliationJob,
      ],
    };
  }
}
