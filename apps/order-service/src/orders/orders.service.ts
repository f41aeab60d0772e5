import { Injectable } from '@nestjs/common';
import { uuidv7 } from '@nest-outbox/core';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { CreateOrderDto } from './create-order.dto';
import { Order } from './order.entity';
import {
  ORDER_AGGREGATE,
  ORDER_EVENT,
  ORDER_EVENT_SCHEMA_VERSION,
  type OrderCancelledV1,
  type OrderConfirmedV1,
  type OrderCreatedV1,
} from './order-events';
import { CANCELLABLE, CONFIRMABLE } from './order-status';

/**
 * The order commands. Each one is one transaction: the conditional change of the order row
 * and its event in the outbox commit together or not at all. A transition that does not
 * apply throws `InvalidTransitionError` and records nothing.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxService,
  ) {}

  /**
   * Places an order (status `pending`, version 1) and records `order.created`. Non-critical:
   * refused (`OutboxBackPressureError`, HTTP 503) while the outbox's pressure is critical;
   * confirming and cancelling existing orders never are.
   */
  @OutboxTransactional({ critical: false })
  async create(input: CreateOrderDto): Promise<Order> {
    const now = new Date();
    const order: Order = {
      id: uuidv7(),
      ...input,
      status: 'pending',
      version: 1,
      createdAt: now,
      updatedAt: now,
      confirmedAt: null,
      cancelledAt: null,
      cancelReason: null,
    };
    await this.txHost.tx.getRepository(Order).insert(order);
    await this.record<OrderCreatedV1>(ORDER_EVENT.created, order.id, order.version, {
      orderId: order.id,
      customerId: order.customerId,
      amountCents: order.amountCents,
      currency: order.currency,
      createdAt: now.toISOString(),
    });
    return order;
  }

  /** `pending -> confirmed`, recording `order.confirmed`. */
  @OutboxTransactional()
  async confirm(orderId: string): Promise<Order> {
    const now = new Date();
    const version = await this.outbox.transition({
      table: this.table('orders'),
      id: orderId,
      from: CONFIRMABLE,
      to: 'confirmed',
      set: { confirmed_at: now, updated_at: now },
    });
    const order = await this.load(orderId);
    await this.record<OrderConfirmedV1>(ORDER_EVENT.confirmed, orderId, version, {
      orderId,
      customerId: order.customerId,
      shippingAddress: order.shippingAddress,
      amountCents: order.amountCents,
      currency: order.currency,
      confirmedAt: now.toISOString(),
    });
    return order;
  }

  /** `pending | confirmed -> cancelled`, recording `order.cancelled`. */
  @OutboxTransactional()
  async cancel(orderId: string, reason: string): Promise<Order> {
    const now = new Date();
    const version = await this.outbox.transition({
      table: this.table('orders'),
      id: orderId,
      from: CANCELLABLE,
      to: 'cancelled',
      set: { cancelled_at: now, cancel_reason: reason, updated_at: now },
    });
    const order = await this.load(orderId);
    await this.record<OrderCancelledV1>(ORDER_EVENT.cancelled, orderId, version, {
      orderId,
      reason,
      wasConfirmed: order.confirmedAt !== null,
      cancelledAt: now.toISOString(),
    });
    return order;
  }

  /** The order, or `null` when there is none with this id. */
  find(orderId: string): Promise<Order | null> {
    return this.txHost.tx.getRepository(Order).findOneBy({ id: orderId });
  }

  private load(orderId: string): Promise<Order> {
    return this.txHost.tx.getRepository(Order).findOneByOrFail({ id: orderId });
  }

  /** `table` in the orders' schema (the data source's). */
  private table(table: string): string {
    return `${this.txHost.tx.connection.getMetadata(Order).schema ?? 'public'}.${table}`;
  }

  private async record<T>(type: string, orderId: string, version: number, payload: T) {
    await this.outbox.record<T>({
      eventType: type,
      aggregateType: ORDER_AGGREGATE,
      aggregateId: orderId,
      aggregateVersion: version,
      schemaVersion: ORDER_EVENT_SCHEMA_VERSION,
      payload,
    });
  }
}
