import { NestOutboxError } from '@nest-outbox/core';

/** An event's serialized payload is larger than `maxPayloadBytes` (thrown by `record()`). @publicApi */
export class PayloadTooLargeError extends NestOutboxError {
  constructor(
    readonly eventType: string,
    readonly sizeBytes: number,
    readonly maxBytes: number,
  ) {
    super(
      `Payload of event "${eventType}" is ${sizeBytes} bytes, more than maxPayloadBytes ` +
        `(${maxBytes}): record a smaller payload (for example an id and let consumers fetch ` +
        "the rest) or raise OutboxModule option maxPayloadBytes (and the Kafka topic's " +
        'max.message.bytes with it)',
    );
  }
}
