import { Module, type DynamicModule } from '@nestjs/common';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterDrizzleOrm } from '@nestjs-cls/transactional-adapter-drizzle-orm';
import { InboxModule } from '@nest-outbox/inbox';
import { OutboxModule } from '@nest-outbox/outbox';
import { RelayModule } from '@nest-outbox/relay';
import { ClsModule } from 'nestjs-cls';
import type { AppExtras } from '../shared/app-extras.js';
import { consumerEnv } from '../shared/consumer-env.js';
import { OrderEventsController } from '../nest/order-events.controller.js';
import { OrdersService } from '../shared/orders.service.js';
import { ShipmentsService } from '../shared/shipments.service.js';
import { DrizzleOrdersService, DrizzleShipmentsService } from './drizzle-orders.service.js';
import { DRIZZLE, DrizzleModule, type Database } from './drizzle.module.js';

const { schema, databaseUrl, brokers, topic } = consumerEnv;
const APP_TABLES = Symbol('APP_TABLES');

/** The app's own tables (a drizzle-kit migration's job). */
const appTables = {
  provide: APP_TABLES,
  useFactory: async (db: Database) => {
    await db.$client.query(`CREATE TABLE IF NOT EXISTS "${schema}".orders (
      id uuid PRIMARY KEY, status text NOT NULL, version integer NOT NULL);
    CREATE TABLE IF NOT EXISTS "${schema}".shipments (
      order_id uuid PRIMARY KEY, source_event_id uuid NOT NULL)`);
    return true;
  },
  inject: [DRIZZLE],
};

/** The wiring a user on Drizzle writes (DrizzleModule is docs/STACKS.md's): only the adapter line differs from TypeORM's. */
@Module({})
export class AppModule {
  static register(extras: AppExtras = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DrizzleModule,
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [DrizzleModule],
              adapter: new TransactionalAdapterDrizzleOrm({ drizzleInstanceToken: DRIZZLE }),
            }),
          ],
        }),
        OutboxModule.forRoot({ schema, tuning: { table: 'outbox' } }),
        RelayModule.forRoot({
          connection: { connectionString: databaseUrl, max: 2 },
          kafka: { clientId: `${schema}-relay`, brokers },
          routing: { routes: { order: topic } },
          schema,
          tuning: { table: 'outbox' },
        }),
        InboxModule.forRoot({
          kafka: { clientId: `${schema}-inbox`, brokers },
          schema,
        }),
        ...(extras.imports ?? []),
      ],
      controllers: [OrderEventsController, ...(extras.controllers ?? [])],
      // The shared user path looks the services up by the shared classes.
      providers: [
        appTables,
        { provide: OrdersService, useClass: DrizzleOrdersService },
        { provide: ShipmentsService, useClass: DrizzleShipmentsService },
        ...(extras.providers ?? []),
      ],
    };
  }
}
