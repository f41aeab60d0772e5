/**
 * Where this consumer app runs: the stack's addresses and the names of this run (a schema,
 * a topic and a consumer group of its own, chosen by run-matrix.ts).
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run the consumer apps with npm run test:consumers`);
  return value;
}

export const consumerEnv = {
  databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
  schema: required('CONSUMER_SCHEMA'),
  topic: required('CONSUMER_TOPIC'),
  groupId: required('CONSUMER_GROUP'),
} as const;
