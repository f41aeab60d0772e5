/**
 * The order events this service publishes (schema_version 1). Payloads state the business
 * fact; they are a contract, not a dump of the table: add optional fields freely, bump
 * `schema_version` for anything else.
 */
export const ORDER_AGGREGATE = 'order';

/** Event types, as in the `event_type` header. */
export const ORDER_EVENT = {
  created: 'order.created',
  confirmed: 'order.confirmed',
  cancelled: 'order.cancelled',
} as const;

export const ORDER_EVENT_SCHEMA_VERSION = 1;

/** `order.created` v1: a customer placed an order. */
export interface OrderCreatedV1 {
  readonly orderId: string;
  readonly customerId: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly createdAt: string;
}

/** `order.confirmed` v1: the order is accepted and must be shipped to `shippingAddress`. */
export interface OrderConfirmedV1 {
  readonly orderId: string;
  readonly customerId: string;
  readonly shippingAddress: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly confirmedAt: string;
}

/** `order.cancelled` v1: the order will not be fulfilled; `wasConfirmed` says a shipment may exist. */
export interface OrderCancelledV1 {
  readonly orderId: string;
  readonly reason: string;
  readonly wasConfirmed: boolean;
  readonly cancelledAt: string;
}
