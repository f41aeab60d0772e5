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
import type { InboxConsumerPort } from './inbox-consumer.port';
import { kafkajsConsumerPort } from './kafkajs-consumer.port';
import { watchKafkaServers } from './kafka-servers';

/**
 * The Kafka consumers the inbox handlers run on, one session each: every Kafka microservice's
 * consumer is attached when it connects (a plain `ServerKafka` serving an inbox handler is
 * refused at start-up), one started another way by `attach`.
 * @publicApi
 */
@Injectable()
export class InboxConsumerRegistry implements BeforeApplicationShutdown {
  private readonly sessions = new Map<InboxConsumerPort, ConsumerSession>();
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
      let current: InboxConsumerPort | undefined;
      statuses.push(
        server.status.subscribe((status) => {
          const found = String(status) === 'connected' ? portOf(server) : undefined;
          if (!found) return;
          const { port, recover } = found;
          if (current && current !== port) this.forget(current);
          current = port;
          const known = this.sessions.has(port);
          const session = this.attachPort(port, recover);
          if (!known) session.starting();
        }),
      );
    });
    this.unwatch = () => {
      unwatch();
      for (const s of statuses.splice(0)) s.unsubscribe();
    };
    const { kafka } = options.raw;
    this.stopLag = kafka
      ? pollGroupLag(kafka, () => [...this.sessions.values()].map((s) => s.lag))
      : () => Promise.resolve();
  }

  /**
   * The session of `consumer`, created on first use.
   * @param recover runs the consumer again when kafkajs crashes it for good, e.g.
   *   `() => server.bindEvents(consumer)`
   */
  attach(consumer: Consumer, recover?: ConsumerRecovery): ConsumerSession {
    return this.attachPort(kafkajsConsumerPort(consumer), recover);
  }

  /** The session of a consumer of any client, through its port. @internal */
  attachPort(port: InboxConsumerPort, recover?: ConsumerRecovery): ConsumerSession {
    let session = this.sessions.get(port);
    if (!session) {
      session = new ConsumerSession(port, this.metrics, this.logger, recover);
      this.sessions.set(port, session);
    }
    if (recover) session.recoverWith(recover);
    return session;
  }

  /** Drops the session of a consumer its server replaced (it reports nothing any more). */
  private forget(port: InboxConsumerPort): void {
    this.sessions.get(port)?.close();
    this.sessions.delete(port);
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

/**
 * The port of the server's consumer once it has one (a server on another client gives its own),
 * with how to run it again after a crash its client does not restart.
 */
function portOf(
  server: ServerKafka & { inboxConsumerPort?: () => InboxConsumerPort | undefined },
): { port: InboxConsumerPort; recover?: ConsumerRecovery } | undefined {
  if (server.inboxConsumerPort) {
    const port = server.inboxConsumerPort();
    return port && { port };
  }
  try {
    const consumer = server.unwrap<[unknown, Consumer | null]>()[1];
    if (!consumer) return undefined;
    return { port: kafkajsConsumerPort(consumer), recover: () => server.bindEvents(consumer) };
  } catch {
    return undefined; // not started
  }
}
