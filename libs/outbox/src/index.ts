export {
  outboxSchemaSql,
  dropOutboxSchemaSql,
  type OutboxTableName,
} from './schema/outbox-schema.sql';
