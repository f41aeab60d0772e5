import { NestOutboxError } from '@nest-outbox/core';

/**
 * A failed RabbitMQ publish, with `type` as the relay's classifier reads it: `UNROUTABLE`
 * (returned under `mandatory`: no queue is bound for the routing key),
 * `UNKNOWN_TOPIC_OR_PARTITION` (no such exchange), `MESSAGE_TOO_LARGE` and
 * `TOPIC_AUTHORIZATION_FAILED` park the event; any other failure (connection or channel lost,
 * a broker nack) is retried with backoff. The client's error, when there is one, is the `cause`.
 * @publicApi
 */
export class RabbitMqPublishError extends NestOutboxError {
  constructor(
    readonly type: string | undefined,
    message: string,
    cause?: unknown,
  ) {
    super(`RelayModule: RabbitMQ publish failed${type ? ` [${type}]` : ''}: ${message}`, {
      cause,
    });
  }
}

/** AMQP reply codes that close a channel, as the relay's error types. */
const BY_CODE: Readonly<Record<number, string>> = {
  403: 'TOPIC_AUTHORIZATION_FAILED',
  404: 'UNKNOWN_TOPIC_OR_PARTITION',
};

/**
 * The error of a publish whose channel or connection closed: typed by the broker's reply
 * (a 406 naming the max size is a message too large), else transient.
 * @internal
 */
export function closedChannelError(closedBy: unknown): RabbitMqPublishError {
  const code = (closedBy as { code?: unknown } | undefined)?.code;
  const text = closedBy instanceof Error ? closedBy.message : 'channel closed';
  const type =
    code === 406 && /larger than configured max size/.test(text)
      ? 'MESSAGE_TOO_LARGE'
      : typeof code === 'number'
        ? BY_CODE[code]
        : undefined;
  return new RabbitMqPublishError(type, text, closedBy);
}
