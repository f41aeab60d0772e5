import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OutboxModule } from '@nest-outbox/outbox';
import {
  embeddedRelayModule,
  SampleHealthController,
  sampleTypeOrmModule,
  transactionalClsModule,
} from '../../common/src';
import { ORDERS_OUTBOX_TABLE, orderServiceMigrations } from './database/orders.migration';
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
  return embeddedRelayModule(config, {
    table: ORDERS_OUTBOX_TABLE,
    clientId: 'order-service-relay',
    routes: { [ORDER_AGGREGATE]: config.orderEventsTopic },
  });
}

/**
 * The order service: orders over PostgreSQL (TypeORM), their events in the outbox of the
 * same transaction, and (unless `RELAY_EMBEDDED=false`) the relay publishing them.
 * `/health` checks the database and the embedded relay (`SampleHealthController`).
 */
@Module({})
export class OrderServiceModule {
  static forRoot(config: OrderServiceConfig): DynamicModule {
    return {
      module: OrderServiceModule,
      imports: [
        sampleTypeOrmModule(config, {
          service: 'order-service',
          entities: [Order],
          migrations: orderServiceMigrations(config.schema),
          poolMax: 20,
        }),
        transactionalClsModule(),
        OutboxModule.forRoot({
          // The relay's state behind 503 + Retry-After for new orders while it is critical.
          pressure: true,
          schema: config.schema,
          tuning: { table: ORDERS_OUTBOX_TABLE },
        }),
        TerminusModule,
        ...(config.relayEmbedded ? [embeddedRelay(config)] : []),
      ],
      controllers: [
        OrdersController,
        ReconciliationController,
        SampleHealthController,
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
