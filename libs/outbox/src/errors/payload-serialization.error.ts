import { NestOutboxError } from '@nest-outbox/core';

/** An event's payload cannot be serialized to JSON (thrown by `record()`). @publicApi */
export class PayloadSerializationError extends NestOutboxError {
  constructor(
    readonly eventType: string,
    cause?: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : 'the payload is not a JSON value';
    super(
      `Payload of event "${eventType}" cannot be serialized to JSON (${reason}): convert ` +
        'BigInt values to strings, remove cycles and functions, or give the payload a toJSON()',
      { cause },
    );
  }
}
