import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { OrderStatus } from './order-status';

/**
 * An order. The table lives in the service's schema (the data source's default schema,
 * `ORDERS_SCHEMA`); `version` counts the order's changes and is the events'
 * `aggregate_version`.
 */
@Entity({ name: 'orders' })
@Index('orders_created_at_idx', ['createdAt'])
export class Order {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text', { name: 'customer_id' })
  customerId!: string;

  @Column('integer', { name: 'amount_cents' })
  amountCents!: number;

  @Column('text')
  currency!: string;

  @Column('text', { name: 'shipping_address' })
  shippingAddress!: string;

  @Column('text')
  status!: OrderStatus;

  @Column('integer')
  version!: number;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;

  @Column('timestamptz', { name: 'confirmed_at', nullable: true })
  confirmedAt!: Date | null;

  @Column('timestamptz', { name: 'cancelled_at', nullable: true })
  cancelledAt!: Date | null;

  @Column('text', { name: 'cancel_reason', nullable: true })
  cancelReason!: string | null;
}
