import type { ReconciliationReport } from '../../apps/order-service/src/reconciliation/reconciliation-report';

/** An order as the order service returns it. */
export interface OrderView {
  readonly id: string;
  readonly status: 'pending' | 'confirmed' | 'cancelled';
  readonly version: number;
  readonly confirmedAt: string | null;
}

/** A shipment as the shipping service returns it. */
export interface ShipmentView {
  readonly id: string;
  readonly orderId: string;
  readonly status: 'created' | 'cancelled';
  readonly version: number;
}

/** The reconciliation report, as `GET /reconciliation` returns it (a JSON-only type). */
export type ReconciliationView = ReconciliationReport;

/** An HTTP answer: status and parsed JSON body. */
export interface Answer<T> {
  readonly status: number;
  readonly body: T;
}

async function call<T>(
  url: string,
  method = 'GET',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/** The sample system's HTTP APIs, as a client uses them. */
export class SampleHttpClient {
  constructor(
    private readonly ordersUrl: string,
    private readonly shippingUrl: string,
  ) {}

  /** `POST /orders`; with `idempotencyKey`, sent as the `Idempotency-Key` header (quoted). */
  createOrder(
    customerId: string,
    amountCents = 1999,
    idempotencyKey?: string,
  ): Promise<Answer<OrderView>> {
    const body = {
      customerId,
      amountCents,
      currency: 'EUR',
      shippingAddress: `${customerId}, 1 Sample Street, 75001 Paris`,
    };
    const headers: Record<string, string> =
      idempotencyKey === undefined ? {} : { 'idempotency-key': `"${idempotencyKey}"` };
    return call(`${this.ordersUrl}/orders`, 'POST', body, headers);
  }

  confirm(orderId: string): Promise<Answer<OrderView>> {
    return call(`${this.ordersUrl}/orders/${orderId}/confirm`, 'POST');
  }

  cancel(orderId: string, reason = 'customer request'): Promise<Answer<OrderView>> {
    return call(`${this.ordersUrl}/orders/${orderId}/cancel`, 'POST', { reason });
  }

  order(orderId: string): Promise<Answer<OrderView>> {
    return call(`${this.ordersUrl}/orders/${orderId}`);
  }

  shipmentOf(orderId: string): Promise<Answer<ShipmentView>> {
    return call(`${this.shippingUrl}/shipments/by-order/${orderId}`);
  }

  reconcile(from: Date, to: Date): Promise<Answer<ReconciliationView>> {
    const q = `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;
    return call(`${this.ordersUrl}/reconciliation?${q}`);
  }

  /** Raw Prometheus text of an app's `/metrics`. */
  async metrics(baseUrl: string): Promise<string> {
    const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
    return response.text();
  }
}

/** Sum of every sample of `name` in a Prometheus text (0 when absent). */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
    }
  }
  return sum;
}
