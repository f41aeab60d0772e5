export { DATABASE_URL, KAFKA_BROKERS, REPO_ROOT } from './env';
export { waitFor } from './poll';
export { createTestSchema, type TestSchema } from './postgres';
export {
  consumeUntil,
  createTopics,
  testKafka,
  topicRecordCount,
  uniqueTopic,
  type ConsumedRecord,
} from './kafka';
export { startPrivateKafka, type PrivateKafka } from './private-kafka';
export { countingSockets } from './counting-sockets';
export { startSecuredKafka, type ScramUser, type SecuredKafka } from './secured-kafka';
export { spawnJs, spawnTs, type TsChild } from './child-process';
export { freePort, freePorts } from './free-port';
export { startTestTracing, type TestTracing } from './otel';
export { barrelExports, internalExports } from './barrel-exports';
export { portOpen } from './kafka-node';
export { startPrivatePostgres, postgresBinDir, type PrivatePostgres } from './private-postgres';
export { PgFaultProxy } from './pg-fault-proxy';
export {
  startKafkaCluster,
  type ClusterNode,
  type KafkaCluster,
  type PartitionState,
} from './kafka-cluster';
export { acquireFaultSlot } from './fault-slot';
export {
  javaConsume,
  javaGroupOffsets,
  javaProduce,
  type JavaCompression,
  type JavaConsumedRecord,
  type JavaGroupOffset,
  type JavaRecord,
} from './java-kafka';
export { describeWithTool, findTool, type Tool } from './needs-tool';
export {
  BATCH_ATTRIBUTES_AT,
  BATCH_RECORD_COUNT_AT,
  KafkaFetchRewriter,
  recordBatches,
  replaceBatch,
  sealBatch,
  type FetchedPartition,
  type RecordBatchBytes,
  type RecordsRewrite,
} from './kafka-fetch-rewriter';
export { NATS_SERVERS, createTestStream, natsConnect, type TestStream } from './nats';
export { RABBITMQ_URL, amqpHeaders, rabbitTestClient, type RabbitTestClient } from './rabbitmq';
