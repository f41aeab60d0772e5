import { Inject, Injectable } from '@nestjs/common';
import { ORDER_SERVICE_CONFIG, type OrderServiceConfig } from '../order-service.config';

/** A shipment as the shipping service's lookup endpoint returns it. */
export interface ShipmentView {
  readonly orderId: string;
  readonly status: string;
}

const CHUNK = 1000;

/** Reads the shipping service's projection over HTTP (its read endpoint). */
@Injectable()
export class ShippingClient {
  constructor(@Inject(ORDER_SERVICE_CONFIG) private readonly config: OrderServiceConfig) {}

  /** The shipments of these orders (orders without one are absent from the result). */
  async shipmentsOf(orderIds: readonly string[]): Promise<ShipmentView[]> {
    const out: ShipmentView[] = [];
    for (let i = 0; i < orderIds.length; i += CHUNK) {
      const response = await fetch(`${this.config.shippingUrl}/shipments/lookup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ orderIds: orderIds.slice(i, i + CHUNK) }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) {
        throw new Error(`shipping service answered ${response.status} to /shipments/lookup`);
      }
      const body = (await response.json()) as { shipments: ShipmentView[] };
      out.push(...body.shipments);
    }
    return out;
  }
}
