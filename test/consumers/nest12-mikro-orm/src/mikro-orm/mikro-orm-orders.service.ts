import { Injectable } from '@nestjs/common';
import type { EventEnvelope } from '@nest-outbox/core';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterMikroOrm } from '@nest-outbox/core/internal';
import type { EntityManager } from '@mikro-orm/postgresql';
import { consumerEnv } from '../shared/consumer-env.js';
import type { OrderConfirmed } from '../shared/shipments.service.js';

/** MikroORM's adapter type (a type alias in the constructor would lose its DI metadata). */
type MikroOrm = TransactionalAdapterMikroOrm<EntityManager>;
const { schema } = consumerEnv;

/** The producer side on MikroORM: `txHost.tx` is MikroORM's forked `EntityManager`. */
@Injectable()
export class MikroOrmOrdersService {
  constructor(
    private readonly outbox: OutboxService,
    private readonly txHost: TransactionHost<MikroOrm>,
  ) {}

  @Transactional()
  async place(orderId: string): Promise<void> {
    await this.txHost.tx.execute(
      `INSERT INTO "${schema}".orders (id, status, version) VALUES (?, 'pending', 1)`,
      [orderId],
    );
  }

  /** The conditional transition and its event commit together, or neither does. */
  @OutboxTransactional()
  async confirm(orderId: string): Promise<void> {
    const version = await this.outbox.transition({
      table: `${schema}.orders`,
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

/** The effect of an order event, written through MikroORM's forked `EntityManager` in the inbox's transaction. */
@Injectable()
export class MikroOrmShipmentsService {
  /** How many times an effect ran (a duplicate must not run it). */
  applied = 0;

  constructor(private readonly txHost: TransactionHost<MikroOrm>) {}

  async open(event: EventEnvelope<OrderConfirmed>): Promise<void> {
    this.applied += 1;
    await this.txHost.tx.execute(
      `INSERT INTO "${schema}".shipments (order_id, source_event_id) VALUES (?, ?)`,
      [event.payload.orderId, event.eventId],
    );
  }
}
