/**
 * What the sample services (apps/order-service, apps/shipping-service) share: environment
 * parsing, the schema/topic bootstrap, the migrations' shape, the Nest wiring of the data
 * source, the transactional CLS and the embedded relay, and `/health`, `/metrics` helpers.
 * Each service's own domain (entities, events, controllers, services) stays in the service.
 */
export { EnvReader } from './config/env.reader';
export {
  readSampleServiceConfig,
  type SampleServiceConfig,
  type SampleServiceEnvNames,
} from './config/sample-service.config';
export { ensureSchema } from './database/ensure-schema';
export { createSqlMigration, type SqlMigrationStatements } from './database/sql.migration';
export { ensureTopics } from './kafka/topic.bootstrap';
export { embeddedRelayModule, type EmbeddedRelayOptions } from './nest/embedded-relay.module';
export { prepareSchemaAndTopics, runSampleService } from './nest/sample-service.bootstrap';
export { sampleTypeOrmModule, type SampleTypeOrmOptions } from './nest/sample-typeorm.module';
export { transactionalClsModule } from './nest/transactional-cls.module';
export { PROMETHEUS_CONTENT_TYPE, prometheusText } from './observability/prometheus.text';
export {
  SampleHealthController,
  SERVICE_HEALTH_CHECKS,
} from './observability/sample-health.controller';
