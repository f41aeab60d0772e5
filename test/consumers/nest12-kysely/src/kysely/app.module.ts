import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { InboxModule } from '@nest-outbox/inbox';
import { OutboxModule } from '@nest-outbox/outbox';
import { RelayModule } from '@nest-outbox/relay';
import { TransactionalAdapterKysely } from '@nest-outbox/core/internal';
import { Kysely, PostgresDialect } from 'kysely';
import { ClsModule } from 'nestjs-cls';
import pg from 'pg';
import type { AppExtras } from '../shared/app-extras.js';
import { consumerEnv } from '../shared/consumer-env.js';
import { OrderEventsController } from '../nest/order-events.controller.js';
import { OrdersService } from '../shared/orders.service.js';
import { ShipmentsService } from '../shared/shipments.service.js';
import { KyselyOrdersService, KyselyShipmentsService } from './kysely-orders.service.js';

const { schema, databaseUrl, brokers, topic } = consumerEnv;
export const KYSELY = Symbol('KYSELY');

/** Kysely on its own node-postgres pool, and the app's own tables (a migration's job). */
@Global()
@Module({
  providers: [
    {
      provide: KYSELY,
      useFactory: async () => {
        const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
        await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".orders (
          id uuid PRIMARY KEY, status text NOT NULL, version integer NOT NULL);
        CREATE TABLE IF NOT EXISTS "${schema}".shipments (
          order_id uuid PRIMARY KEY, source_event_id uuid NOT NULL)`);
        return new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
      },
    },
  ],
  exports: [KYSELY],
})
class KyselyModule {}

/** The wiring a user on Kysely writes: only the adapter line differs from TypeORM's. */
@Module({})
export class AppModule {
  static register(extras: AppExtras = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        KyselyModule,
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [KyselyModule],
              adapter: new TransactionalAdapterKysely({ kyselyToken: KYSELY }),
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
        { provide: OrdersService, useClass: KyselyOrdersService },
        { provide: ShipmentsService, useClass: KyselyShipmentsService },
        ...(extras.providers ?? []),
      ],
    };
  }
}
