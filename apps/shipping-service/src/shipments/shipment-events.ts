/** The events the shipping service publishes (schema_version 1): business facts, not rows. */
export const SHIPMENT_AGGREGATE = 'shipment';

export const SHIPMENT_EVENT = {
  created: 'shipment.created',
  cancelled: 'shipment.cancelled',
} as const;

export const SHIPMENT_EVENT_SCHEMA_VERSION = 1;

/** `shipment.created` v1: a shipment was opened for a confirmed order. */
export interface ShipmentCreatedV1 {
  readonly shipmentId: string;
  readonly orderId: string;
  readonly shippingAddress: string;
  readonly createdAt: string;
}

/** `shipment.cancelled` v1: the order was cancelled; the shipment will not leave. */
export interface ShipmentCancelledV1 {
  readonly shipmentId: string;
  readonly orderId: string;
  readonly reason: string;
  readonly cancelledAt: string;
}
