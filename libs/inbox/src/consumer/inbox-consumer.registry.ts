import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { ServerKafka } from '@nestjs/microservices';
import type { Consumer } from 'kafkajs';
import { INBOX_OPTIONS } from '../inbox.constants';
import { InboxMetrics } from '../metrics/inbox.metrics';
import type { ResolvedInboxOptions } from '../options/inbox-options.resolver';
import type { ConsumerRecovery, ConsumerSnapshot } from './consumer-snapshot';
import { ConsumerSession } from './consumer.session';
import { pollGroupLag } from './group-lag';
import { watchKafkaServers } from './kafka-servers';

/**
 * The Kafka consumers the inbox handlers run on, one session each: every Kafka microservice's
 * consumer is attached when it connects (a plain `ServerKafka` serving an inbox handler is
 * refused at start-up), one started another way by `attach`.
 * @publicApi
 */
@Injectable()
export class InboxConsumerRegistry implements BeforeApplicationShutdown {
  private readonly sessions = new Map<Consumer, ConsumerSession>();
  private readonly logger = new Logger('InboxModule');
  private readonly unwatch: () => void;
  private readonly stopLag: () => Promise<void>;

  constructor(
    @Inject(InboxMetrics) private readonly metrics: InboxMetrics,
    @Inject(ModulesContainer) modules: ModulesContainer,
    @Inject(INBOX_OPTIONS) options: ResolvedInboxOptions,
  ) {
    const statuses: { unsubscribe(): void }[] = [];
    const unwatch = watchKafkaServers(modules, (server) => {
      // Its consumer connects before it runs: attached then, with how to run it again. A start
      // that failed half-way leaves a consumer the next start replaces: that one is forgotten.
      let current: Consumer | undefined;
      statuses.push(
        server.status.subscribe((status) => {
          const consumer = String(status) === 'connected' ? consumerOf(server) : undefined;
          if (!consumer) return;
          if (current && current !== consumer) this.forget(current);
          current = consumer;
          const known = this.sessions.has(consumer);
          const session = this.attach(consumer, () => server.bindEvents(consumer));
          if (!known) session.starting();
        }),
      );
    });
    this.unwatch = () => {
      unwatch();
      for (const s of statuses.splice(0)) s.unsubscribe();
    };
    this.stopLag = pollGroupLag(options.raw.kafka, () =>
      [...this.sessions.values()].map((s) => s.lag),
    );
  }

  /**
   * The session of `consumer`, created on first use.
   * @param recover runs the consumer again when kafkajs crashes it for good, e.g.
   *   `() => server.bindEvents(consumer)`
   */
  attach(consumer: Consumer, recover?: ConsumerRecovery): ConsumerSession {
    let session = this.sessions.get(consumer);
    if (!session) {
      session = new ConsumerSession(consumer, this.metrics, this.logger, recover);
      this.sessions.set(consumer, session);
    }
    if (recover) session.recoverWith(recover);
    return session;
  }

  /** Drops the session of a consumer its server replaced (it reports nothing any more). */
  private forget(consumer: Consumer): void {
    this.sessions.get(consumer)?.close();
    this.sessions.delete(consumer);
  }

  /** What each attached consumer looks like now. */
  snapshots(): ConsumerSnapshot[] {
    return [...this.sessions.values()].map((s) => s.snapshot());
  }

  /**
   * Resumes a partition paused by a poison event (the event is redelivered); false when none was.
   */
  resume(topic: string, partition: number): boolean {
    let resumed = false;
    for (const session of this.sessions.values())
      resumed = session.resume(topic, partition) || resumed;
    return resumed;
  }

  /** Commits every committable offset now (also done at shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.flush()));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unwatch();
    await this.stopLag();
    await this.flush().catch(() => undefined);
    // Sessions stay registered (closed): records still finishing during shutdown commit nothing.
    for (const session of this.sessions.values()) session.close();
  }
}

/** The server's kafkajs consumer, once it has one. */
function consumerOf(server: ServerKafka): Consumer | undefined {
  try {
    return server.unwrap<[unknown, Consumer | null]>()[1] ?? undefined;
  } catch {
    return undefined; // not started
  }
}
