import { Injectable } from '@nestjs/common';
import type { EventEnvelope } from '@nest-outbox/core';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterPrisma } from '@nestjs-cls/transactional-adapter-prisma';
import { consumerEnv } from '../shared/consumer-env.js';
import type { OrderConfirmed } from '../shared/shipments.service.js';
import type { PrismaService } from './prisma.service.js';

/** Prisma's client type (a type alias would lose the constructor's DI metadata). */
type Prisma = TransactionalAdapterPrisma<PrismaService>;
const { schema } = consumerEnv;

/** The producer side on Prisma: `txHost.tx` is Prisma's transaction client. */
@Injectable()
export class PrismaOrdersService {
  constructor(
    private readonly outbox: OutboxService,
    private readonly txHost: TransactionHost<Prisma>,
  ) {}

  @Transactional()
  async place(orderId: string): Promise<void> {
    await this.txHost.tx.$executeRawUnsafe(
      `INSERT INTO "${schema}".orders (id, status, version) VALUES ($1::uuid, 'pending', 1)`,
      orderId,
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

/** The effect of an order event, written through Prisma's client in the inbox's transaction. */
@Injectable()
export class PrismaShipmentsService {
  /** How many times an effect ran (a duplicate must not run it). */
  applied = 0;

  constructor(private readonly txHost: TransactionHost<Prisma>) {}

  async open(event: EventEnvelope<OrderConfirmed>): Promise<void> {
    this.applied += 1;
    await this.txHost.tx.$executeRawUnsafe(
      `INSERT INTO "${schema}".shipments (order_id, source_event_id) VALUES ($1::uuid, $2::uuid)`,
      event.payload.orderId,
      event.eventId,
    );
  }
}
