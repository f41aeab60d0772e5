import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `created` when the order was confirmed, `cancelled` when the order was cancelled afterwards. */
export type ShipmentStatus = 'created' | 'cancelled';

/**
 * A shipment: the shipping service's projection of confirmed orders. One per order
 * (`order_id` is unique); `version` is the `aggregate_version` of its own events.
 */
@Entity({ name: 'shipments' })
export class Shipment {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'order_id', unique: true })
  orderId!: string;

  @Column('text')
  status!: ShipmentStatus;

  @Column('integer')
  version!: number;

  @Column('text', { name: 'customer_id' })
  customerId!: string;

  @Column('text', { name: 'shipping_address' })
  shippingAddress!: string;

  /** `event_id` of the `order.confirmed` that created it (for audits). */
  @Column('uuid', { name: 'source_event_id' })
  sourceEventId!: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;

  @Column('timestamptz', { name: 'cancelled_at', nullable: true })
  cancelledAt!: Date | null;
}
