import { Injectable } from '@nestjs/common';
import { uuidv7, type EventEnvelope } from '@nest-outbox/core';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In } from 'typeorm';
import type { OrderCancelled, OrderConfirmed } from './order-events.contract';
import { Shipment } from './shipment.entity';
import {
  SHIPMENT_AGGREGATE,
  SHIPMENT_EVENT,
  SHIPMENT_EVENT_SCHEMA_VERSION,
  type ShipmentCancelledV1,
  type ShipmentCreatedV1,
} from './shipment-events';

/**
 * The projection's effects. Called by the inbox handler inside the inbox's transaction:
 * the shipment row, its own outbox event and the inbox row commit together (a chain:
 * consumer side and producer side in one transaction).
 */
@Injectable()
export class ShipmentsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxService,
  ) {}

  /** `order.confirmed`: opens the order's shipment and records `shipment.created`. */
  @OutboxTransactional()
  async openShipment(event: EventEnvelope<OrderConfirmed>): Promise<Shipment> {
    const { orderId, customerId, shippingAddress } = event.payload;
    const now = new Date();
    const shipment: Shipment = {
      id: uuidv7(),
      orderId,
      status: 'created',
      version: 1,
      customerId,
      shippingAddress,
      sourceEventId: event.eventId,
      createdAt: now,
      updatedAt: now,
      cancelledAt: null,
    };
    await this.txHost.tx.getRepository(Shipment).insert(shipment);
    await this.outbox.record<ShipmentCreatedV1>({
      eventType: SHIPMENT_EVENT.created,
      aggregateType: SHIPMENT_AGGREGATE,
      aggregateId: shipment.id,
      aggregateVersion: shipment.version,
      schemaVersion: SHIPMENT_EVENT_SCHEMA_VERSION,
      correlationId: orderId,
      payload: { shipmentId: shipment.id, orderId, shippingAddress, createdAt: now.toISOString() },
    });
    return shipment;
  }

  /**
   * `order.cancelled` of a confirmed order: cancels its shipment and records
   * `shipment.cancelled`. An order cancelled before confirmation has no shipment: no effect.
   */
  @OutboxTransactional()
  async cancelShipment(event: EventEnvelope<OrderCancelled>): Promise<Shipment | null> {
    const { orderId, reason, wasConfirmed } = event.payload;
    if (!wasConfirmed) return null;
    const shipment = await this.txHost.tx.getRepository(Shipment).findOneBy({ orderId });
    // Order events arrive in order per order id: a confirmed order's shipment exists. If it
    // does not, fail (retried, then dead-lettered and visible) rather than skip silently.
    if (!shipment) throw new Error(`no shipment for cancelled order ${orderId}`);
    const now = new Date();
    const metadata = this.txHost.tx.connection.getMetadata(Shipment);
    const version = await this.outbox.transition({
      table: `${metadata.schema ?? 'public'}.${metadata.tableName}`,
      id: shipment.id,
      from: 'created',
      to: 'cancelled',
      set: { cancelled_at: now, updated_at: now },
    });
    await this.outbox.record<ShipmentCancelledV1>({
      eventType: SHIPMENT_EVENT.cancelled,
      aggregateType: SHIPMENT_AGGREGATE,
      aggregateId: shipment.id,
      aggregateVersion: version,
      schemaVersion: SHIPMENT_EVENT_SCHEMA_VERSION,
      correlationId: orderId,
      payload: { shipmentId: shipment.id, orderId, reason, cancelledAt: now.toISOString() },
    });
    return { ...shipment, status: 'cancelled', version, cancelledAt: now, updatedAt: now };
  }

  /** The shipment of an order, if any. */
  findByOrder(orderId: string): Promise<Shipment | null> {
    return this.txHost.tx.getRepository(Shipment).findOneBy({ orderId });
  }

  /** The shipments of these orders (orders without one are absent). */
  findByOrders(orderIds: readonly string[]): Promise<Shipment[]> {
    if (orderIds.length === 0) return Promise.resolve([]);
    return this.txHost.tx.getRepository(Shipment).findBy({ orderId: In([...orderIds]) });
  }
}
