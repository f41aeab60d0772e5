/**
 * RabbitMQ connection of the relay (`broker: 'rabbitmq'`, `amqplib` 2.x, an optional peer:
 * `npm i amqplib@^2`). Every event goes to `exchange` with routing key = its topic, the
 * aggregate id in the `aggregate_id` header; exchanges, queues and bindings are the
 * application's (the relay declares nothing).
 * @publicApi
 */
export interface RelayRabbitMqOptions {
  /** `amqp://user:password@host:5672/vhost` (or `amqps://`). */
  readonly url: string;
  /** The exchange every event is published to; `''` is RabbitMQ's default exchange, where the topic names the queue. @default '' */
  readonly exchange?: string;
  /** Largest message body sent (a larger event parks as `message_too_large`); keep it under the broker's `max_message_size`. @default 16777216 */
  readonly maxMessageBytes?: number;
  /** Connection name shown in the management UI. @default 'nest-outbox-relay' */
  readonly connectionName?: string;
}
