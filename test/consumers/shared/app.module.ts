import { Module, type DynamicModule } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { InboxModule } from '@nest-outbox/inbox';
import { OutboxModule } from '@nest-outbox/outbox';
import { RelayModule } from '@nest-outbox/relay';
import { ClsModule } from 'nestjs-cls';
import type { AppExtras } from './app-extras.js';
import { consumerEnv } from './consumer-env.js';
import { OrderEventsController } from '../nest/order-events.controller.js';
import { OrdersService } from './orders.service.js';
import { ShipmentsService } from './shipments.service.js';
import { migrations } from './orders.migrations.js';

const { schema, databaseUrl, brokers, topic } = consumerEnv;

/**
 * The wiring a user writes: TypeORM, nestjs-cls with the transactional plugin, the outbox,
 * an embedded relay and the inbox, each with a small connection pool.
 */
@Module({})
export class AppModule {
  static register(extras: AppExtras = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: databaseUrl,
          schema,
          migrations,
          migrationsRun: true,
          extra: { max: 3 },
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
      providers: [OrdersService, ShipmentsService, ...(extras.providers ?? [])],
    };
  }
}
