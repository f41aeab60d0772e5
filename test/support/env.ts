/** Connection settings of the real stack the tests run against (see scripts/stack.sh). */
export const DATABASE_URL =
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const KAFKA_BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
export const REPO_ROOT = `${__dirname}/../..`;
