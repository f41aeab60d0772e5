export { AppProcess, type HealthAnswer } from './app-process';
export { freePort } from './free-port';
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
