export { DATABASE_URL, KAFKA_BROKERS, REPO_ROOT } from './env';
export { waitFor } from './poll';
export { createTestSchema, type TestSchema } from './postgres';
export { consumeUntil, createTopics, testKafka, uniqueTopic, type ConsumedRecord } from './kafka';
export { startPrivateKafka, type PrivateKafka } from './private-kafka';
export { spawnJs, spawnTs, type TsChild } from './child-process';
export { freePort } from './free-port';
export { startTestTracing, type TestTracing } from './otel';
export { barrelExports } from './barrel-exports';
