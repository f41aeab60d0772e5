import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterPg } from '@nest-outbox/core/internal';
import { InboxModule } from '@nest-outbox/inbox';
import { OutboxModule } from '@nest-outbox/outbox';
import { RelayModule } from '@nest-outbox/relay';
import { ClsModule } from 'nestjs-cls';
import pg from 'pg';
import type { AppExtras } from '../shared/app-extras.js';
import { consumerEnv } from '../shared/consumer-env.js';
import { OrderEventsController } from '../nest/order-events.controller.js';
import { OrdersService } from '../shared/orders.service.js';
import { ShipmentsService } from '../shared/shipments.service.js';

const { schema, databaseUrl, brokers, topic } = consumerEnv;
export const PG_POOL = Symbol('PG_POOL');

/** The app's pool, its own tables created once it is up (the libraries install theirs). */
@Global()
@Module({
  providers: [
    {
      provide: PG_POOL,
      useFactory: async () => {
        const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
        await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".orders (
          id uuid PRIMARY KEY, status text NOT NULL, version integer NOT NULL);
        CREATE TABLE IF NOT EXISTS "${schema}".shipments (
          order_id uuid PRIMARY KEY, source_event_id uuid NOT NULL)`);
        return pool;
      },
    },
  ],
  exports: [PG_POOL],
})
class PgModule {}

/** The wiring a user on plain `pg` writes: only the adapter line differs from TypeORM's. */
@Module({})
export class AppModule {
  static register(extras: AppExtras = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PgModule,
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [PgModule],
              adapter: new TransactionalAdapterPg({ poolToken: PG_POOL }),
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
