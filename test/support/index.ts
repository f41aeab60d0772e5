export { DATABASE_URL, KAFKA_BROKERS, REPO_ROOT } from './env';
export { waitFor } from './poll';
export { createTestSchema, type TestSchema } from './postgres';
export { consumeUntil, createTopics, testKafka, uniqueTopic, type ConsumedRecord } from './kafka';
export { startPrivateKafka, type PrivateKafka } from './private-kafka';
export { spawnNode, spawnTs, type ChildRun, type TsChild } from './child-process';
export { freePort } from './free-port';
