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

/**
 * An error of the platformatic client (its codes start with `PLT_KFK_`) as the relay's
 * classifier reads it; any other error (a TypeError building a request, the relay's own) as is.
 * @internal
 */
export function platformaticError(error: unknown, type = protocolErrorId(error)): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const client = typeof code === 'string' && code.startsWith('PLT_KFK_');
  return client ? new PlatformaticKafkaError(type, error) : error;
}
