import { Injectable } from '@nestjs/common';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import type { SqlAdapter } from './sql-adapter.js';
import { consumerEnv } from './consumer-env.js';

/** The producer side of the app: a plain transactional insert and one decorated command. */
@Injectable()
export class OrdersService {
  constructor(
    private readonly outbox: OutboxService,
    private readonly txHost: TransactionHost<SqlAdapter>,
  ) {}

  @Transactional()
  async place(orderId: string): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO "${consumerEnv.schema}".orders (id, status, version) VALUES ($1, 'pending', 1)`,
      [orderId],
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
