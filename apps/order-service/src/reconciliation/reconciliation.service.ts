import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ORDERS_OUTBOX_TABLE } from '../database/orders.migration';
import { OrderMetrics } from '../observability/order.metrics';
import { ORDER_SERVICE_CONFIG, type OrderServiceConfig } from '../order-service.config';
import { ORDER_AGGREGATE, ORDER_EVENT } from '../orders/order-events';
import {
  MISMATCH_KINDS,
  type ReconciliationReport,
  type ReconciliationWindow,
} from './reconciliation-report';
import { ShippingClient } from './shipping.client';

interface OrderFact {
  id: string;
  status: string;
  was_confirmed: boolean;
}

/**
 * Confirmed orders in the order database vs `order.confirmed` events published (the
 * outbox's `published_at`, set only after the broker's ack) vs shipments applied by the
 * shipping service. Judges what it is given: leave recent changes time to flow.
 */
@Injectable()
export class ReconciliationService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(ORDER_SERVICE_CONFIG) private readonly config: OrderServiceConfig,
    private readonly shipping: ShippingClient,
    private readonly metrics: OrderMetrics,
  ) {}

  /** Reconciles the orders created in the window, updates the metrics and returns the report. */
  async run(window: ReconciliationWindow): Promise<ReconciliationReport> {
    try {
      const report = await this.compare(window);
      for (const kind of MISMATCH_KINDS) this.metrics.mismatches.set({ kind }, report[kind].length);
      this.metrics.reconciliations.inc({ verdict: report.verdict });
      return report;
    } catch (error) {
      this.metrics.reconciliations.inc({ verdict: 'error' });
      throw error;
    }
  }

  private async compare(window: ReconciliationWindow): Promise<ReconciliationReport> {
    const orders = await this.orderFacts(window);
    const confirmed = orders.filter((o) => o.was_confirmed).map((o) => o.id);
    const published = await this.publishedConfirmations(confirmed);
    const shipments = new Map(
      (await this.shipping.shipmentsOf(orders.map((o) => o.id))).map((s) => [s.orderId, s]),
    );
    const cancelledAfter = orders.filter((o) => o.was_confirmed && o.status === 'cancelled');
    const report = {
      window: { from: window.from.toISOString(), to: window.to.toISOString() },
      orders: orders.length,
      confirmedOrders: confirmed.length,
      cancelledAfterConfirmation: cancelledAfter.length,
      confirmedEventsPublished: published.size,
      shipments: shipments.size,
      missingEvents: confirmed.filter((id) => !published.has(id)),
      missingShipments: confirmed.filter((id) => !shipments.has(id)),
      unexpectedShipments: orders
        .filter((o) => !o.was_confirmed && shipments.has(o.id))
        .map((o) => o.id),
      uncancelledShipments: cancelledAfter
        .filter((o) => shipments.has(o.id) && shipments.get(o.id)?.status !== 'cancelled')
        .map((o) => o.id),
    };
    const clean = MISMATCH_KINDS.every((kind) => report[kind].length === 0);
    return { ...report, verdict: clean ? 'clean' : 'mismatch' };
  }

  /** Orders created in the window whose last change is older than its end (the rest is still flowing). */
  private orderFacts(window: ReconciliationWindow): Promise<OrderFact[]> {
    return this.db.query(
      `SELECT id::text AS id, status, confirmed_at IS NOT NULL AS was_confirmed
         FROM "${this.config.schema}"."orders" WHERE created_at >= $1 AND created_at < $2 AND updated_at < $2`,
      [window.from, window.to],
    );
  }

  private async publishedConfirmations(orderIds: string[]): Promise<Set<string>> {
    if (orderIds.length === 0) return new Set();
    const rows: { aggregate_id: string }[] = await this.db.query(
      `SELECT DISTINCT aggregate_id FROM "${this.config.schema}"."${ORDERS_OUTBOX_TABLE}"
        WHERE aggregate_type = $1 AND event_type = $2 AND published_at IS NOT NULL
          AND aggregate_id = ANY($3)`,
      [ORDER_AGGREGATE, ORDER_EVENT.confirmed, orderIds],
    );
    return new Set(rows.map((r) => r.aggregate_id));
  }
}
