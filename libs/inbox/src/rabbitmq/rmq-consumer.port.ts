import type { InboxConsumerPort } from '../consumer/inbox-consumer.port';

/**
 * The consumer port of an `InboxRmqServer`: RabbitMQ has no group, offsets nor partitions to
 * pause, so its session only tracks messages in flight; each message is acknowledged by the
 * server itself once settled. @internal
 */
export function rmqConsumerPort(): InboxConsumerPort {
  const done = () => Promise.resolve();
  return {
    listen: () => () => undefined,
    commit: () => Promise.resolve(true),
    pause: () => undefined,
    seek: () => undefined,
    resume: () => undefined,
    connect: done,
    disconnect: done,
  };
}
