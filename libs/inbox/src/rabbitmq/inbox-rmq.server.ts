import { InvalidOptionsError } from '@nest-outbox/core';
import { logLine } from '@nest-outbox/core/internal';
import { RmqContext, ServerRMQ, type MessageHandler, type RmqOptions } from '@nestjs/microservices';
import type { ConsumerSession } from '../consumer/consumer.session';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import type { InboxLink } from '../transport/inbox-link';
import { rmqConsumerPort } from './rmq-consumer.port';
import { rmqRecord, type RmqMessage } from './rmq-record';

/** Options of `InboxRmqServer`: Nest's RMQ transport options (`noAck: false`). @publicApi */
export type InboxRmqServerOptions = NonNullable<RmqOptions['options']> & {
  /** `InboxModule`'s `connectionName`, when it has one (checked at start-up). */
  readonly connectionName?: string;
};

/** What the channel of Nest's RMQ transport is asked for. */
interface RmqChannel {
  ack(message: unknown): void;
  nack(message: unknown, allUpTo?: boolean, requeue?: boolean): void;
}

/**
 * The inbox's RabbitMQ transport: Nest's `ServerRMQ` (same options, `noAck: false`) whose
 * messages go through the inbox one at a time, in queue order: decode, register and handler in
 * ONE PostgreSQL transaction, then `ack` (through the message's `RmqContext`). A failing handler
 * is retried with backoff inside; once exhausted, or when the message is bad input, it is written
 * to the rejected table with its reason and nacked without requeue (to the queue's dead-letter
 * exchange when it has one). A crash before the ack redelivers the message: the duplicate is
 * absorbed. The routing key names the topic (`@EventPattern`); the relay publishes with routing
 * key = topic. Every handler it serves must be an `@InboxHandler`.
 * @example
 * app.connectMicroservice({ strategy: new InboxRmqServer({ urls, queue: 'orders', noAck: false }) });
 * @publicApi
 */
export class InboxRmqServer extends ServerRMQ {
  private readonly connectionName: string | undefined;
  private readonly port = rmqConsumerPort();
  private inbox: InboxLink | undefined;
  private session: ConsumerSession | undefined;
  private turn: Promise<void> = Promise.resolve();
  private sequence = 0n;

  constructor(options: InboxRmqServerOptions) {
    if (options.noAck !== false)
      throw new InvalidOptionsError(
        'InboxRmqServer',
        'noAck',
        'must be false: the inbox acknowledges each message after its PostgreSQL commit',
      );
    // Deliveries wait in the channel while one is handled; a bound keeps memory bounded.
    super({ prefetchCount: 50, ...options });
    this.connectionName = options.connectionName;
  }

  /** Called by the application's `InboxModule` when the microservice is created. @internal */
  useInbox(link: InboxLink): void {
    this.inbox = link;
  }

  override async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      this.checkRoutes();
    } catch (error) {
      callback(error);
      return;
    }
    await super.listen(callback);
  }

  /** Messages are handled one after the other, in delivery order (per-aggregate order holds). */
  override handleMessage(message: Record<string, unknown> | null, channel: unknown): Promise<void> {
    if (!message) return Promise.resolve(); // the broker cancelled the consumer
    const turn = this.turn.then(() => this.consume(message as never, channel as RmqChannel));
    this.turn = turn;
    return turn;
  }

  private async consume(message: RmqMessage, channel: RmqChannel): Promise<void> {
    const topic = message.fields.routingKey;
    const context = new RmqContext([message, channel, topic]);
    const settle = (ok: boolean, requeue = false) => {
      const ref = context.getChannelRef() as RmqChannel;
      if (ok) ref.ack(context.getMessage());
      else ref.nack(context.getMessage(), false, requeue);
    };
    try {
      const { pipeline, routes } = this.link();
      const served = routes(topic);
      if (served.length === 0) {
        this.logger.warn(logLine('message without an inbox handler nacked', { topic }));
        return settle(false);
      }
      this.session ??= this.link().session(this.port);
      const record = rmqRecord(message, context, topic, (this.sequence += 1n));
      let settled = true;
      for (const route of served) {
        const outcome = await pipeline.runRecord(this.session, route, record);
        if (outcome === 'rejected' || outcome === 'dead-lettered') settled = false;
      }
      settle(settled);
    } catch (error) {
      // An infrastructure error (PostgreSQL down after the retries, the channel closed): the
      // message goes back to the queue (or is redelivered with the next channel).
      this.logger.error(logLine('message requeued', { topic, error }));
      try {
        settle(false, true);
      } catch {
        // The channel is gone: the broker redelivers the message.
      }
    }
  }

  private link(): InboxLink {
    if (!this.inbox)
      throw new InboxMisuseError(
        'InboxRmqServer started without InboxModule: import InboxModule.forRoot() in the application that connects it.',
      );
    return this.inbox;
  }

  /** Each pattern served has only inbox handlers, with the dead-letter policy. */
  private checkRoutes(): void {
    const inbox = this.link();
    if (inbox.connectionName !== this.connectionName)
      throw new InboxMisuseError(
        `InboxRmqServer has connectionName ${JSON.stringify(this.connectionName ?? null)} but InboxModule ` +
          `${JSON.stringify(inbox.connectionName ?? null)}: give both the same connectionName.`,
      );
    for (const [topic, handler] of this.messageHandlers) {
      const routes = inbox.routes(topic);
      let handlers = 0;
      for (let h: MessageHandler | undefined = handler; h; h = h.next) handlers += 1;
      if (routes.length === 0 || routes.length !== handlers || routes.some((r) => r.batch))
        throw new InboxMisuseError(
          `InboxRmqServer: pattern '${topic}' has handlers other than @InboxHandler (an @EventPattern without it, or an @InboxBatchHandler): make each an @InboxHandler.`,
        );
      const paused = routes.find((r) => r.policy.onExhausted === 'pause');
      if (paused)
        throw new InboxMisuseError(
          `InboxRmqServer: @InboxHandler('${paused.consumer}') has onExhausted 'pause', which RabbitMQ cannot do (a queue has no partition to pause): use 'dead-letter' and give the queue a dead-letter exchange.`,
        );
    }
  }
}
