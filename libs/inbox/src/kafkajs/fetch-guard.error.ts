import { NestOutboxError } from '@nest-outbox/core';

/**
 * The inbox's Kafka connection met a Fetch it does not read: a version kafkajs 2.2.x does not
 * send to a Kafka >= 0.11 broker, or a response cut short. The connection is closed (kafkajs
 * reconnects); no record of it reaches a handler. @internal
 */
export class FetchGuardError extends NestOutboxError {}
