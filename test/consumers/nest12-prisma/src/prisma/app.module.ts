import { Module, type DynamicModule } from '@nestjs/common';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterPrisma } from '@nestjs-cls/transactional-adapter-prisma';
import { InboxModule } from '@nest-outbox/inbox';
import { OutboxModule } from '@nest-outbox/outbox';
import { RelayModule } from '@nest-outbox/relay';
import { ClsModule } from 'nestjs-cls';
import type { AppExtras } from '../shared/app-extras.js';
import { consumerEnv } from '../shared/consumer-env.js';
import { OrderEventsController } from '../nest/order-events.controller.js';
import { OrdersService } from '../shared/orders.service.js';
import { ShipmentsService } from '../shared/shipments.service.js';
import { PrismaOrdersService, PrismaShipmentsService } from './prisma-orders.service.js';
import { PrismaModule, PrismaService } from './prisma.service.js';

const { schema, databaseUrl, brokers, topic } = consumerEnv;
const APP_TABLES = Symbol('APP_TABLES');

/** The app's own tables, created as plain SQL (a custom migration's job). */
const appTables = {
  provide: APP_TABLES,
  useFactory: async (prisma: PrismaService) => {
    await prisma.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS "${schema}".orders (
      id uuid PRIMARY KEY, status text NOT NULL, version integer NOT NULL)`);
    await prisma.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS "${schema}".shipments (
      order_id uuid PRIMARY KEY, source_event_id uuid NOT NULL)`);
    return true;
  },
  inject: [PrismaService],
};

/** The wiring a user on Prisma writes (PrismaModule is docs/STACKS.md's): only the adapter line differs from TypeORM's. */
@Module({})
export class AppModule {
  static register(extras: AppExtras = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PrismaModule,
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [PrismaModule],
              adapter: new TransactionalAdapterPrisma({ prismaInjectionToken: PrismaService }),
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
        { provide: OrdersService, useClass: PrismaOrdersService },
        { provide: ShipmentsService, useClass: PrismaShipmentsService },
        ...(extras.providers ?? []),
      ],
    };
  }
}
