export { NestOutboxError, InvalidOptionsError } from './nest-outbox.error';
export { sqlIdentifier, qualifiedTable } from './sql-identifier';
export { uuidv7, isUuid } from './uuid-v7';
export {
  EVENT_HEADERS,
  isReservedHeader,
  readHeaders,
  toKafkaHeaders,
  type EventEnvelope,
  type KafkaHeaderSource,
  type RawHeaderValue,
} from './event-contract';
export {
  DEFAULT_NOTIFY_CHANNEL,
  OUTBOX_WAKEUP,
  OutboxWakeup,
  type WakeupListener,
} from './outbox-wakeup';
