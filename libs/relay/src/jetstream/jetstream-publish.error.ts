import { NestOutboxError } from '@nest-outbox/core';
import { errorChain } from '../errors/error-classifier';

/** JetStream API error codes that no retry fixes, as the Kafka error types the relay classifies. */
const API_CODES: Readonly<Record<number, string>> = {
  10054: 'MESSAGE_TOO_LARGE', // message size exceeds the stream's max_msg_size
  10059: 'UNKNOWN_TOPIC_OR_PARTITION', // stream not found
  10060: 'UNKNOWN_TOPIC_OR_PARTITION', // expected stream does not match
};

/**
 * A failed publish to NATS JetStream. `type` is the Kafka error type of the same fault, so
 * that the relay classifies it as it does Kafka's: no stream for the subject (503 no
 * responders, stream not found) as `UNKNOWN_TOPIC_OR_PARTITION`, a message over the server's
 * `max_payload` or the stream's `max_msg_size` as `MESSAGE_TOO_LARGE`, a refused permission
 * as `TOPIC_AUTHORIZATION_FAILED`: each parks the event. Anything else (timeouts, a lost
 * connection, a stream leader election) has no type and is retried with backoff. The client's
 * error is the `cause`.
 * @publicApi
 */
export class JetStreamPublishError extends NestOutboxError {
  constructor(
    readonly type: string | undefined,
    problem: string,
    cause?: unknown,
  ) {
    super(
      `RelayModule: NATS JetStream refused the publish${type ? ` [${type}]` : ''}: ${problem}`,
      {
        cause,
      },
    );
  }
}

const named = (e: unknown, name: string) => (e as { name?: unknown }).name === name;

/**
 * An error of the NATS client as the relay's classifier reads it.
 * @param subject the subject published to (named in the message, it carries no payload)
 * @internal
 */
export function jetStreamError(error: unknown, subject: string): JetStreamPublishError {
  for (const e of errorChain(error)) {
    if (
      named(e, 'NoRespondersError') ||
      (e as { isNoResponders?: () => boolean }).isNoResponders?.()
    )
      return new JetStreamPublishError(
        'UNKNOWN_TOPIC_OR_PARTITION',
        `no stream captures subject ${JSON.stringify(subject)} (503 no responders): add the subject to a stream's subjects, then retry the parked event`,
        error,
      );
    if (named(e, 'PermissionViolationError'))
      return new JetStreamPublishError(
        'TOPIC_AUTHORIZATION_FAILED',
        `no permission to publish to ${JSON.stringify(subject)}: grant it, then retry the parked event`,
        error,
      );
    const code = (e as { code?: unknown }).code;
    const api = typeof (e as { apiError?: unknown }).apiError === 'function';
    if (api && typeof code === 'number' && API_CODES[code])
      return new JetStreamPublishError(
        API_CODES[code],
        `${(e as { message?: unknown }).message as string} (${code}) on subject ${JSON.stringify(subject)}`,
        error,
      );
  }
  const name = (error as { name?: unknown } | null)?.name;
  return new JetStreamPublishError(
    undefined,
    `${typeof name === 'string' ? name : 'error'}: ${error instanceof Error ? error.message : String(error)}`,
    error,
  );
}
