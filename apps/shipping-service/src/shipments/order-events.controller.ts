import { Controller, Logger } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import type { EventEnvelope } from '@nest-outbox/core';
import { InboxEvent, InboxHandler } from '@nest-outbox/inbox';
import { ORDER_EVENTS_TOPIC } from '../shipping-service.config';
import {
  ORDER_EVENT_TYPES,
  SUPPORTED_ORDER_SCHEMA_VERSIONS,
  type OrderCancelled,
  type OrderConfirmed,
} from './order-events.contract';
import { ShipmentsService } from './shipments.service';

/** The inbox consumer name: the dedup key is (`SHIPPING_PROJECTION`, event_id). */
export const SHIPPING_PROJECTION = 'shipping-projection';

/**
 * Consumes the order events. The inbox validates the envelope, runs this handler at most
 * once per event id in one transaction with the inbox row, then commits the offset.
 */
@Controller()
export class OrderEventsController {
  private readonly logger = new Logger('OrderEvents');

  constructor(private readonly shipments: ShipmentsService) {}

  @EventPattern(ORDER_EVENTS_TOPIC)
  @InboxHandler(SHIPPING_PROJECTION, {
    eventTypes: ORDER_EVENT_TYPES,
    schemaVersions: SUPPORTED_ORDER_SCHEMA_VERSIONS,
  })
  async onOrderEvent(@InboxEvent() event: EventEnvelope): Promise<void> {
    switch (event.eventType) {
      case 'order.confirmed': {
        const shipment = await this.shipments.openShipment(event as EventEnvelope<OrderConfirmed>);
        this.logger.debug(`shipment ${shipment.id} for order ${event.aggregateId}`);
        return;
      }
      case 'order.cancelled':
        await this.shipments.cancelShipment(event as EventEnvelope<OrderCancelled>);
        return;
      default:
        // order.created: nothing to ship yet; the inbox row records that it was seen.
        return;
    }
  }
}
