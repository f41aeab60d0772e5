import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { InboxModule } from '@nest-outbox/inbox';
import { OutboxModule } from '@nest-outbox/outbox';
import { RelayModule } from '@nest-outbox/relay';
import { TransactionalAdapterMikroOrm } from '@nest-outbox/core/internal';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { ClsModule } from 'nestjs-cls';
import type { AppExtras } from '../shared/app-extras.js';
import { consumerEnv } from '../shared/consumer-env.js';
import { OrderEventsController } from '../nest/order-events.controller.js';
import { OrdersService } from '../shared/orders.service.js';
import { ShipmentsService } from '../shared/shipments.service.js';
import { MikroOrmOrdersService, MikroOrmShipmentsService } from './mikro-orm-orders.service.js';

const { schema, databaseUrl, brokers, topic } = consumerEnv;
export const ENTITY_MANAGER = Symbol('ENTITY_MANAGER');

/** MikroORM's EntityManager, and the app's own tables (a migration's job). */
@Global()
@Module({
  providers: [
    {
      provide: ENTITY_MANAGER,
      useFactory: async () => {
        const orm = await MikroORM.init({
          driver: PostgreSqlDriver,
          clientUrl: databaseUrl,
          entities: [],
          discovery: { warnWhenNoEntities: false },
          pool: { min: 0, max: 3 },
        });
        await orm.em.getConnection().execute(`CREATE TABLE IF NOT EXISTS "${schema}".orders (
          id uuid PRIMARY KEY, status text NOT NULL, version integer NOT NULL);
        CREATE TABLE IF NOT EXISTS "${schema}".shipments (
          order_id uuid PRIMARY KEY, source_event_id uuid NOT NULL)`);
        return orm.em;
      },
    },
  ],
  exports: [ENTITY_MANAGER],
})
class MikroOrmModule {}

/** The wiring a user on MikroORM writes: only the adapter line differs from TypeORM's. */
@Module({})
export class AppModule {
  static register(extras: AppExtras = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MikroOrmModule,
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [MikroOrmModule],
              adapter: new TransactionalAdapterMikroOrm({ entityManagerToken: ENTITY_MANAGER }),
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
        { provide: OrdersService, useClass: MikroOrmOrdersService },
        { provide: ShipmentsService, useClass: MikroOrmShipmentsService },
        ...(extras.providers ?? []),
      ],
    };
  }
}
