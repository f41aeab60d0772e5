/**
 * The order events as this consumer reads them (schema_version 1 of the order service's
 * contract). Only the fields the shipping service uses are declared.
 */
export const ORDER_EVENT_TYPES = ['order.created', 'order.confirmed', 'order.cancelled'] as const;

export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

/** Payload formats this consumer understands. */
export const SUPPORTED_ORDER_SCHEMA_VERSIONS = [1] as const;

export interface OrderConfirmed {
  readonly orderId: string;
  readonly customerId: string;
  readonly shippingAddress: string;
}

export interface OrderCancelled {
  readonly orderId: string;
  readonly reason: string;
  readonly wasConfirmed: boolean;
}
