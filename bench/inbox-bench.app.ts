/**
 * The inbox benchmark's consumer application: TypeORM + ClsModule (transactional plugin) +
 * InboxModule, and one Kafka controller applying a simple projection through the inbox:
 * ONE UPSERT per event, through `TransactionHost.tx` (the inbox's transaction), from an
 * `@InboxHandler` or an `@InboxBatchHandler`.
 */
import { Controller, Inject, Module, type Type } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import { ClsPluginTransactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { EventEnvelope } from '@nest-outbox/core';
import {
  InboxBatchHandler,
  InboxEvent,
  InboxEvents,
  InboxHandler,
  InboxModule,
} from '@nest-outbox/inbox';
import { DATABASE_URL, KAFKA_BROKERS } from '@test/support';
import { ClsModule } from 'nestjs-cls';
import type { PoolClient } from 'pg';

/** When the first record reached the projection's handler (process.hrtime.bigint()). */
export interface FirstRecordClock {
  at: bigint | undefined;
}

/** DDL of the projection the handler maintains. */
export function projectionDdl(schema: string): string {
  return `CREATE TABLE "${schema}".projection (aggregate_id text PRIMARY KEY, events bigint NOT NULL, total bigint NOT NULL)`;
}

/**
 * How the projection's handler takes its events: one call per record, or per chunk; and
 * `batch-pg`: per chunk, with each UPSERT sent on the transaction's own `pg` client
 * (`queryRunner.connect()`) instead of through TypeORM's `query` (what the handler's
 * data-access layer costs, apart from the inbox's).
 */
export type BenchHandlerKind = 'record' | 'batch' | 'batch-pg';

/**
 * The application module for one round (own schema, own topic): the projection through an
 * `@InboxHandler` (one call per record) or an `@InboxBatchHandler` (one call per chunk, the
 * same UPSERT per event).
 */
export function inboxBenchModule(
  schema: string,
  topic: string,
  clock: FirstRecordClock,
  kind: BenchHandlerKind = 'record',
): Type {
  const upsert = `INSERT INTO "${schema}".projection (aggregate_id, events, total) VALUES ($1, 1, $2)
         ON CONFLICT (aggregate_id) DO UPDATE SET events = projection.events + 1, total = projection.total + EXCLUDED.total`;

  @Controller()
  class BatchProjectionController {
    constructor(
      @Inject(TransactionHost)
      private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    ) {}

    @EventPattern(topic)
    @InboxBatchHandler('bench-projection', { eventTypes: ['order.confirmed'] })
    async apply(@InboxEvents() events: readonly EventEnvelope<{ total: number }>[]): Promise<void> {
      clock.at ??= process.hrtime.bigint();
      // batch-pg: the pg client the transaction runs on (TypeORM's public QueryRunner.connect()).
      const client =
        kind === 'batch-pg'
          ? ((await this.txHost.tx.queryRunner!.connect()) as PoolClient)
          : undefined;
      for (const event of events) {
        const params = [event.aggregateId, event.payload.total];
        if (client) await client.query(upsert, params);
        else await this.txHost.tx.query(upsert, params);
      }
    }
  }

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
      await this.txHost.tx.query(upsert, [event.aggregateId, event.payload.total]);
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
        tuning: { installSchema: true },
      }),
    ],
    controllers: [kind === 'record' ? ProjectionController : BatchProjectionController],
  })
  class InboxBenchModule {}
  return InboxBenchModule;
}
