/**
 * What the sample services (apps/order-service, apps/shipping-service) share: environment
 * parsing, the schema/topic bootstrap, the migrations' shape, the Nest wiring of the data
 * source, the transactional CLS and the embedded relay, `/health`, `/metrics` helpers, and
 * the HTTP conventions (validation pipe and DTO validators, value-free errors and logs).
 * Each service's own domain (entities, events, controllers, services) stays in the service.
 */
export { EnvReader } from './config/env.reader';
export {
  readSampleServiceConfig,
  type SampleServiceConfig,
  type SampleServiceEnvNames,
} from './config/sample-service.config';
export { ensureSchema } from './database/ensure-schema';
export { pgIdentifier } from './database/pg-identifier';
export { ensureTopics } from './kafka/topic.bootstrap';
export { connectConsumerInBackground, type ConsumerStartup } from './kafka/consumer.startup';
export { InvalidRequestException, type RejectedField } from './http/invalid-request.exception';
export { ValueFreeExceptionFilter } from './http/value-free-exception.filter';
export { embeddedRelayModule, type EmbeddedRelayOptions } from './nest/embedded-relay.module';
export {
  configureSampleHttp,
  prepareSchemaAndTopics,
  runSampleService,
  startSampleApp,
} from './nest/sample-service.bootstrap';
export { sampleLogger } from './nest/sample-logger';
export { retryStartup } from './nest/startup-retry';
export { sampleTypeOrmModule, type SampleTypeOrmOptions } from './nest/sample-typeorm.module';
export { transactionalClsModule } from './nest/transactional-cls.module';
export { ValueFreeTypeOrmLogger } from './nest/value-free-typeorm.logger';
export { PROMETHEUS_CONTENT_TYPE, prometheusText } from './observability/prometheus.text';
export {
  SampleHealthController,
  SERVICE_HEALTH_CHECKS,
} from './observability/sample-health.controller';
export { describeErrorWithoutValues } from './observability/value-free-error';
export { isPrintableText, NoControlCharacters } from './validation/no-control-characters.validator';
export {
  PG_INTEGER_MAX,
  PG_INTEGER_MIN,
  PG_TIMESTAMPTZ_MAX_MS,
  PG_TIMESTAMPTZ_MIN_MS,
} from './validation/pg-column.bounds';
export { IsPgTimestamptz, parsePgTimestamptz } from './validation/pg-timestamptz.validator';
export { IsPlainText } from './validation/plain-text.validator';
export { checkRequestShape, MAX_REQUEST_DEPTH } from './validation/request-shape.check';
export { RequestValidationPipe } from './validation/request-validation.pipe';
