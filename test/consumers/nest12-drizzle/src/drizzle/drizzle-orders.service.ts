import { Injectable } from '@nestjs/common';
import type { EventEnvelope } from '@nest-outbox/core';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterDrizzleOrm } from '@nestjs-cls/transactional-adapter-drizzle-orm';
import { sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { consumerEnv } from '../shared/consumer-env.js';
import type { OrderConfirmed } from '../shared/shipments.service.js';

/** Drizzle's adapter type (a type alias in the constructor would lose its DI metadata). */
type Drizzle = TransactionalAdapterDrizzleOrm<NodePgDatabase>;
const orders = sql.raw(`"${consumerEnv.schema}".orders`);
const shipments = sql.raw(`"${consumerEnv.schema}".shipments`);

/** The producer side on Drizzle: `txHost.tx` is Drizzle's `tx`. */
@Injectable()
export class DrizzleOrdersService {
  constructor(
    private readonly outbox: OutboxService,
    private readonly txHost: TransactionHost<Drizzle>,
  ) {}

  @Transactional()
  async place(orderId: string): Promise<void> {
    await this.txHost.tx.execute(
      sql`INSERT INTO ${orders} (id, status, version) VALUES (${orderId}, 'pending', 1)`,
    );
  }

  /** The conditional transition and its event commit together, or neither does. */
  @OutboxTransactional()
  async confirm(orderId: string): Promise<void> {
    const version = await this.outbox.transition({
      table: `${consumerEnv.schema}.orders`,
      id: orderId,
      from: 'pending',
      to: 'confirmed',
    });
    await this.outbox.record({
      eventType: 'order.confirmed',
      aggregateType: 'order',
      aggregateId: orderId,
      aggregateVersion: version,
      payload: { orderId },
    });
  }
}

/** The effect of an order event, written through Drizzle's `tx` in the inbox's transaction. */
@Injectable()
export class DrizzleShipmentsService {
  /** How many times an effect ran (a duplicate must not run it). */
  applied = 0;

  constructor(private readonly txHost: TransactionHost<Drizzle>) {}

  async open(event: EventEnvelope<OrderConfirmed>): Promise<void> {
    this.applied += 1;
    await this.txHost.tx.execute(
      sql`INSERT INTO ${shipments} (order_id, source_event_id) VALUES (${event.payload.orderId}, ${event.eventId})`,
    );
  }
}
