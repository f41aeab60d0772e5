/**
 * The inbox benchmark's consumer application: TypeORM + ClsModule (transactional plugin) +
 * InboxModule, and one Kafka controller applying a simple projection through the inbox:
 * ONE UPSERT per event, through `TransactionHost.tx` (the inbox's transaction).
 */
import { Controller, Inject, Module, type Type } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import { ClsPluginTransactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { EventEnvelope } from '@nest-outbox/core';
import { InboxEvent, InboxHandler, InboxModule } from '@nest-outbox/inbox';
import { DATABASE_URL, KAFKA_BROKERS } from '@test/support';
import { ClsModule } from 'nestjs-cls';

/** When the first record reached the projection's handler (process.hrtime.bigint()). */
export interface FirstRecordClock {
  at: bigint | undefined;
}

/** DDL of the projection the handler maintains. */
export function projectionDdl(schema: string): string {
  return `CREATE TABLE "${schema}".projection (aggregate_id text PRIMARY KEY, events bigint NOT NULL, total bigint NOT NULL)`;
}

/** The application module for one round (own schema, own topic). */
export function inboxBenchModule(schema: string, topic: string, clock: FirstRecordClock): Type {
  @Controller()
  class ProjectionController {
    constructor(
      @Inject(TransactionHost)
      private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    ) {}

    @EventPattern(topic)
    @InboxHandler('bench-projection', { eventTypes: ['order.confirmed'] })
    async apply(@InboxEvent() event: EventEnvelope<{ total: number }>): Promise<void> {
      clock.at ??= process.hrtime.bigint();
      await this.txHost.tx.query(
        `INSERT INTO "${schema}".projection (aggregate_id, events, total) VALUES ($1, 1, $2)
         ON CONFLICT (aggregate_id) DO UPDATE SET events = projection.events + 1, total = projection.total + EXCLUDED.total`,
        [event.aggregateId, event.payload.total],
      );
    }
  }

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        url: DATABASE_URL,
        extra: { max: 12 },
        entities: [],
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
      InboxModule.forRoot({
        kafka: { brokers: KAFKA_BROKERS },
        schema,
        installSchema: true,
      }),
    ],
    controllers: [ProjectionController],
  })
  class InboxBenchModule {}
  return InboxBenchModule;
}
