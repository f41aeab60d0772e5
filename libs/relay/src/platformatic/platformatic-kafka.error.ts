import { NestOutboxError } from '@nest-outbox/core';
import { errorChain } from '../errors/error-classifier';

/**
 * A failed publish through `@platformatic/kafka`, with the Kafka protocol error it carries as
 * `type` (as kafkajs names it), so that the relay classifies it as it does kafkajs' errors:
 * MESSAGE_TOO_LARGE, an unknown topic or a refused authorization park the event; the rest
 * is retried with backoff. The client's error is the `cause`.
 * @publicApi
 */
export class PlatformaticKafkaError extends NestOutboxError {
  constructor(
    readonly type: string | undefined,
    cause: unknown,
  ) {
    super(
      `RelayModule: @platformatic/kafka failed to publish${type ? ` [${type}]` : ''}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/** The first Kafka protocol error id (`apiId`) in `error`'s causes and aggregated errors. */
function protocolErrorId(error: unknown): string | undefined {
  for (const e of errorChain(error)) {
    const id = (e as { apiId?: unknown }).apiId;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

/** `error` of the platformatic client as the relay's classifier reads it. @internal */
export function platformaticError(error: unknown, type = protocolErrorId(error)): Error {
  return error instanceof NestOutboxError ? error : new PlatformaticKafkaError(type, error);
}
