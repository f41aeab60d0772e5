import { waitFor } from '@test/support';
import { SampleSystem } from '../scripts/sample-system';
import { exportedMetricNames, usedMetricNames } from './monitoring/monitoring-files';

/**
 * The alert rules (deploy/prometheus/alerts.yml) and the dashboard (deploy/grafana/
 * nest-outbox.json) against the real metrics: the sample apps (order service with its embedded
 * relay, the standalone relay, the shipping service with its inbox) are started and their live
 * `/metrics` scraped; every metric name a rule or a panel reads must be exported by one of them.
 */
describe('alert rules and dashboard read only exported metrics (e2e)', () => {
  let system: SampleSystem;

  beforeAll(async () => {
    system = await SampleSystem.create({ prefix: 'e2e_metricnames', relay: 'both', partitions: 1 });
    await system.start();
  }, 180_000);

  afterAll(async () => {
    await system?.teardown();
  }, 60_000);

  it('Given the three sample apps running, when their /metrics are scraped, then every metric name used in a rule or a panel is exported', async () => {
    // One event through the whole system, so that every module has sampled at least once.
    const order = await system.http.createOrder('metric-names');
    expect(order.status).toBe(201);
    expect((await system.http.confirm(order.body.id)).status).toBe(200);
    await waitFor(
      'the shipment',
      async () => (await system.http.shipmentOf(order.body.id)).status === 200,
    );

    const exported = new Set<string>();
    for (const app of [system.orders, system.shipping, system.relay!]) {
      const text = await system.http.metrics(app.url);
      expect({ app: app.url, declares: text.includes('# TYPE ') }).toEqual({
        app: app.url,
        declares: true,
      });
      for (const name of exportedMetricNames(text)) exported.add(name);
    }
    const used = usedMetricNames();
    expect(used.size).toBeGreaterThan(20);
    const missing = [...used]
      .filter(([name]) => !exported.has(name))
      .map(([name, where]) => `${name} (${where.join(', ')})`);
    expect(missing).toEqual([]);
  });
});
