/**
 * The sample order system as a whole, driven from outside: the three apps as real child
 * processes (own schemas, topics, consumer group and free ports), an HTTP client of their
 * APIs, the order workload, and figures read straight from PostgreSQL. Shared by
 * `npm run demo` (scripts/demo.ts) and the end-to-end tests (test/*.e2e-spec.ts); built on
 * the repo's real-stack helpers (test/support: spawnJs, waitFor, createTopics). Imported by
 * relative paths, not `@test/support`, so that `npm run build` compiles the demo to plain
 * JavaScript (dist/scripts) that node runs without a path mapper.
 */
export { AppProcess, type HealthAnswer } from './app-process';
export { freePort } from '../../test/support/free-port';
export {
  metricSum,
  SampleHttpClient,
  type Answer,
  type OrderView,
  type ReconciliationView,
  type ShipmentView,
} from './sample-http.client';
export {
  outboxFigures,
  shippingFigures,
  type OutboxFigures,
  type ShippingFigures,
} from './sample-queries';
export { ENTRIES, SampleSystem, type SampleNames, type SampleSystemOptions } from './sample-system';
export {
  planOf,
  runOrderWorkload,
  type WorkloadOptions,
  type WorkloadResult,
} from './order-workload';
