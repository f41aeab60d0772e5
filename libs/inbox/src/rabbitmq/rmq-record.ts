import { EVENT_HEADERS } from '@nest-outbox/core';
import type { RmqContext } from '@nestjs/microservices';
import type { ChunkRecord } from '../chunk/chunk';
import { headerStrings, type ParsedRecord } from '../envelope/record-parts';
import { MAX_RECORD_HEADERS, TOO_MANY_HEADERS_HEADER } from '../kafkajs/header-decoding';

/** The parts of an amqplib message the inbox reads. @internal */
export interface RmqMessage {
  readonly content: Buffer;
  readonly fields: { readonly routingKey: string };
  readonly properties: { readonly headers?: Record<string, unknown> };
}

/** The body as Nest's RMQ transport parses it: JSON, else the text. */
function parsed(content: Buffer): unknown {
  const text = content.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A RabbitMQ message as a record of the inbox pipeline: the body as text (the decoder parses it
 * within its bounds), the AMQP headers (more than `MAX_RECORD_HEADERS` become the marker the
 * decoder rejects), the routing key as topic, and `sequence` (the server's count of messages)
 * as offset on partition 0. Never throws. @internal
 */
export function rmqRecord(
  message: RmqMessage,
  context: RmqContext,
  topic: string,
  sequence: bigint,
): ChunkRecord {
  let raw: Record<string, unknown> = message.properties.headers ?? {};
  const count = Object.keys(raw).length;
  if (count > MAX_RECORD_HEADERS) raw = { [TOO_MANY_HEADERS_HEADER]: String(count) };
  const key = raw[EVENT_HEADERS.aggregateId];
  const record: ParsedRecord = {
    key: typeof key === 'string' || Buffer.isBuffer(key) ? key : undefined,
    value: message.content.toString('utf8'),
    headers: raw,
  };
  return {
    message: record,
    position: { topic, partition: 0, offset: sequence.toString() },
    offset: sequence,
    headers: headerStrings(raw),
    payload: () => parsed(message.content),
    context,
  };
}
