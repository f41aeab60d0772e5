import { Controller } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import type { EventEnvelope } from '@nest-outbox/core';
import { InboxEvent, InboxHandler } from '@nest-outbox/inbox';
import { consumerEnv } from '../shared/consumer-env.js';
import { ShipmentsService, type OrderConfirmed } from '../shared/shipments.service.js';

/** The consumer side: an ordinary Nest 11 Kafka controller with one extra decorator. */
@Controller()
export class OrderEventsController {
  constructor(private readonly shipments: ShipmentsService) {}

  @EventPattern(consumerEnv.topic)
  @InboxHandler('shipping', { eventTypes: ['order.confirmed'], schemaVersions: [1] })
  async onOrderConfirmed(@InboxEvent() event: EventEnvelope<OrderConfirmed>): Promise<void> {
    await this.shipments.open(event);
  }
}
