import { BadRequestException } from '@nestjs/common';

/** What a client sends to place an order. */
export interface CreateOrderInput {
  readonly customerId: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly shippingAddress: string;
}

function text(body: Record<string, unknown>, field: string, max: number): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
    throw new BadRequestException(
      `${field} must be a non-empty string of at most ${max} characters`,
    );
  }
  return value;
}

/** Validates the request body of `POST /orders` (400 with the reason otherwise). */
export function parseCreateOrder(body: unknown): CreateOrderInput {
  if (typeof body !== 'object' || body === null) {
    throw new BadRequestException('the body must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  const amountCents = b.amountCents;
  if (typeof amountCents !== 'number' || !Number.isInteger(amountCents) || amountCents <= 0) {
    throw new BadRequestException('amountCents must be a positive integer');
  }
  const currency = text(b, 'currency', 3);
  if (!/^[A-Z]{3}$/.test(currency)) {
    throw new BadRequestException('currency must be an ISO 4217 code such as "EUR"');
  }
  return {
    customerId: text(b, 'customerId', 100),
    amountCents,
    currency,
    shippingAddress: text(b, 'shippingAddress', 500),
  };
}
