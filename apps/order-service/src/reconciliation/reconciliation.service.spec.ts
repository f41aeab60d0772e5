import type { DataSource } from 'typeorm';
import { OrderMetrics } from '../observability/order.metrics';
import { loadOrderServiceConfig } from '../order-service.config';
import { ReconciliationService } from './reconciliation.service';
import type { ShippingClient, ShipmentView } from './shipping.client';

interface Fixture {
  orders: { id: string; status: string; was_confirmed: boolean }[];
  published: string[];
  shipments: ShipmentView[];
}

function serviceFor(fixture: Fixture) {
  const db = {
    query: (sql: string) =>
      Promise.resolve(
        sql.includes('event_type')
          ? fixture.published.map((aggregate_id) => ({ aggregate_id }))
          : fixture.orders,
      ),
  } as unknown as DataSource;
  const shipping = {
    shipmentsOf: (ids: readonly string[]) =>
      Promise.resolve(fixture.shipments.filter((s) => ids.includes(s.orderId))),
  } as unknown as ShippingClient;
  const metrics = new OrderMetrics();
  const service = new ReconciliationService(db, loadOrderServiceConfig({}), shipping, metrics);
  return { service, metrics };
}

const window = { from: new Date(0), to: new Date() };

describe('ReconciliationService (unit, fakes for the database and the shipping API)', () => {
  it('Given every confirmed order has its published event and its shipment, then the verdict is clean and the gauges are 0', async () => {
    const { service, metrics } = serviceFor({
      orders: [
        { id: 'a', status: 'confirmed', was_confirmed: true },
        { id: 'b', status: 'cancelled', was_confirmed: true },
        { id: 'c', status: 'cancelled', was_confirmed: false },
        { id: 'd', status: 'pending', was_confirmed: false },
      ],
      published: ['a', 'b'],
      shipments: [
        { orderId: 'a', status: 'created' },
        { orderId: 'b', status: 'cancelled' },
      ],
    });
    const report = await service.run(window);
    expect(report).toMatchObject({
      verdict: 'clean',
      orders: 4,
      confirmedOrders: 2,
      cancelledAfterConfirmation: 1,
      confirmedEventsPublished: 2,
      shipments: 2,
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('orders_reconciliation_mismatches{kind="missingShipments"} 0');
    expect(text).toContain('orders_reconciliation_runs_total{verdict="clean"} 1');
  });

  it('Given each kind of mismatch, then the report names the ids of each kind and the gauges count them', async () => {
    const { service, metrics } = serviceFor({
      orders: [
        { id: 'no-event', status: 'confirmed', was_confirmed: true },
        { id: 'no-shipment', status: 'confirmed', was_confirmed: true },
        { id: 'never-confirmed', status: 'pending', was_confirmed: false },
        { id: 'still-live', status: 'cancelled', was_confirmed: true },
      ],
      published: ['no-shipment', 'still-live'],
      shipments: [
        { orderId: 'no-event', status: 'created' },
        { orderId: 'never-confirmed', status: 'created' },
        { orderId: 'still-live', status: 'created' },
      ],
    });
    const report = await service.run(window);
    expect(report).toMatchObject({
      verdict: 'mismatch',
      missingEvents: ['no-event'],
      missingShipments: ['no-shipment'],
      unexpectedShipments: ['never-confirmed'],
      uncancelledShipments: ['still-live'],
    });
    const text = await metrics.registry.metrics();
    for (const kind of [
      'missingEvents',
      'missingShipments',
      'unexpectedShipments',
      'uncancelledShipments',
    ]) {
      expect(text).toContain(`orders_reconciliation_mismatches{kind="${kind}"} 1`);
    }
    expect(text).toContain('orders_reconciliation_runs_total{verdict="mismatch"} 1');
  });

  it('Given the shipping service does not answer, then the run fails and counts an error verdict', async () => {
    const metrics = new OrderMetrics();
    const db = { query: () => Promise.resolve([]) } as unknown as DataSource;
    const shipping = {
      shipmentsOf: () => Promise.reject(new Error('connect ECONNREFUSED')),
    } as unknown as ShippingClient;
    const service = new ReconciliationService(db, loadOrderServiceConfig({}), shipping, metrics);
    await expect(service.run(window)).rejects.toThrow('ECONNREFUSED');
    expect(await metrics.registry.metrics()).toContain(
      'orders_reconciliation_runs_total{verdict="error"} 1',
    );
  });
});
