import { Injectable } from '@nestjs/common';
import type { EventEnvelope } from '@nest-outbox/core';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { SqlAdapter } from './sql-adapter.js';
import { consumerEnv } from './consumer-env.js';

/** The payload of `order.confirmed`. */
export interface OrderConfirmed {
  readonly orderId: string;
}

/** The effect of an order event, written in the inbox's transaction (`txHost.tx`). */
@Injectable()
export class ShipmentsService {
  /** How many times an effect ran (a duplicate must not run it). */
  applied = 0;

  constructor(private readonly txHost: TransactionHost<SqlAdapter>) {}

  async open(event: EventEnvelope<OrderConfirmed>): Promise<void> {
    this.applied += 1;
    await this.txHost.tx.query(
      `INSERT INTO "${consumerEnv.schema}".shipments (order_id, source_event_id) VALUES ($1, $2)`,
      [event.payload.orderId, event.eventId],
    );
  }
}
