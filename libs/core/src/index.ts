export { NestOutboxError, InvalidOptionsError } from './nest-outbox.error';
export { RenamedOptionError } from './renamed-option.error';
export { OptionalPeerMissingError } from './optional-peer-missing.error';
export { uuidv7 } from './uuid-v7';
export {
  EVENT_HEADERS,
  toKafkaHeaders,
  type EventEnvelope,
  type KafkaHeaderSource,
} from './event-contract';
export type { MigrationOptions } from './sql-migration';
export type { PressureOptions } from './pressure/pressure-options';
export type { PressureLevel } from './pressure/backlog-pressure';
export {
  sqlExecutorOf,
  UnknownDataStackError,
  type SqlExecutor,
  type SqlExecutorFactory,
} from './sql/sql-executor';
export type { SqlTransactionOptions } from './sql/transactional-adapter.interface';
export { TransactionalAdapterPg } from './sql/pg.transactional-adapter';
export { TransactionalAdapterKysely } from './sql/kysely.transactional-adapter';
export { TransactionalAdapterMikroOrm } from './sql/mikro-orm.transactional-adapter';
