import type { InboxKafkaServerOptions } from '../transport/inbox-kafka.server';

/** Options of `PlatformaticInboxServer`: those of `InboxKafkaServer`, plus the client's own. @publicApi */
export type PlatformaticInboxServerOptions = InboxKafkaServerOptions & {
  /**
   * `@platformatic/kafka` `ConsumerOptions`, over those derived from `client` and `consumer`.
   * Typed loosely so that the inbox's published types never need the optional peer's.
   */
  readonly platformatic?: Readonly<Record<string, unknown>>;
};
