import { Injectable } from '@nestjs/common';
import type { EventEnvelope } from '@nest-outbox/core';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterKysely } from '@nest-outbox/core/internal';
import { sql, type Kysely, type Transaction } from 'kysely';
import { consumerEnv } from '../shared/consumer-env.js';
import type { OrderConfirmed } from '../shared/shipments.service.js';

/** Kysely's adapter type (a type alias in the constructor would lose its DI metadata). */
type KyselyTx = TransactionalAdapterKysely<Kysely<unknown>, Transaction<unknown>>;
const orders = sql.raw(`"${consumerEnv.schema}".orders`);
const shipments = sql.raw(`"${consumerEnv.schema}".shipments`);

/** The producer side on Kysely: `txHost.tx` is Kysely's `Transaction`. */
@Injectable()
export class KyselyOrdersService {
  constructor(
    private readonly outbox: OutboxService,
    private readonly txHost: TransactionHost<KyselyTx>,
  ) {}

  @Transactional()
  async place(orderId: string): Promise<void> {
    await sql`INSERT INTO ${orders} (id, status, version) VALUES (${orderId}, 'pending', 1)`.execute(
      this.txHost.tx,
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

/** The effect of an order event, written through Kysely's `Transaction` in the inbox's transaction. */
@Injectable()
export class KyselyShipmentsService {
  /** How many times an effect ran (a duplicate must not run it). */
  applied = 0;

  constructor(private readonly txHost: TransactionHost<KyselyTx>) {}

  async open(event: EventEnvelope<OrderConfirmed>): Promise<void> {
    this.applied += 1;
    await sql`INSERT INTO ${shipments} (order_id, source_event_id) VALUES (${event.payload.orderId}, ${event.eventId})`.execute(
      this.txHost.tx,
    );
  }
}
