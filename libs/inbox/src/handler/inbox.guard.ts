import {
  Inject,
  Injectable,
  Logger,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { KafkaContext } from '@nestjs/microservices';
import type { Consumer } from 'kafkajs';
import { InboxConsumerRegistry } from '../consumer/inbox-consumer.registry';
import { decodeEnvelope, headerStrings } from '../envelope/envelope.decoder';
import { InboxMisuseError } from '../errors/inbox.errors';
import { DeadLetterSink } from './dead-letter.sink';
import { currentInboxBatch } from './inbox-batch.context';
import { attachDelivery, type InboxDelivery } from './inbox-delivery';
import { InboxHandlerPolicies } from './inbox-handler.policies';

/** The KafkaContext of an `@InboxHandler` call, or a misuse error saying why not. @internal */
export function kafkaContextOf(context: ExecutionContext): KafkaContext {
  const rpc = context.getType() === 'rpc' ? context.switchToRpc().getContext<unknown>() : undefined;
  if (!(rpc instanceof KafkaContext)) {
    throw new InboxMisuseError(
      '@InboxHandler works only on @EventPattern methods of a controller served by the Kafka transport ' +
        '(app.connectMicroservice({ transport: Transport.KAFKA, options: { ..., run: { autoCommit: false } } })).',
    );
  }
  return rpc;
}

/**
 * Validates the envelope before anything else runs. A bad record (missing headers,
 * event_id not a UUID, unknown type, unsupported schema_version, oversize, not JSON) is
 * recorded with its reason (rejected-messages table, dead-letter topic if configured),
 * counted, logged without payload, and its offset committed. It always lets the call
 * through: refusing would make Nest throw and kafkajs redeliver the bad record forever;
 * the interceptor skips the handler of a settled record.
 * @internal
 */
@Injectable()
export class InboxGuard implements CanActivate {
  private readonly logger = new Logger('InboxModule');

  constructor(
    @Inject(InboxHandlerPolicies) private readonly policies: InboxHandlerPolicies,
    @Inject(InboxConsumerRegistry) private readonly registry: InboxConsumerRegistry,
    @Inject(DeadLetterSink) private readonly deadLetters: DeadLetterSink,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const kafka = kafkaContextOf(context);
    const handler = this.policies.forHandler(context.getHandler());
    if (!handler)
      throw new InboxMisuseError(
        'InboxGuard applied without @InboxHandler; use @InboxHandler(consumer) instead',
      );
    const message = kafka.getMessage() as unknown as {
      offset: string;
      key?: unknown;
      value?: unknown;
      headers?: Record<string, unknown>;
    };
    const position = {
      topic: kafka.getTopic(),
      partition: kafka.getPartition(),
      offset: message.offset,
    };
    const session = this.registry.attach(kafka.getConsumer() as unknown as Consumer);
    const batch = currentInboxBatch();
    // Inside a chunk whose rows were registered ahead: the very result registration used.
    const ahead = batch?.decodedAhead(message);
    const headers = ahead?.headers ?? headerStrings(message.headers);
    const result =
      ahead?.results.get(handler.policy) ?? decodeEnvelope(message, handler.policy, headers);
    const base = {
      ...handler,
      session,
      context: kafka,
      position,
      offset: BigInt(message.offset),
      headers,
    };
    if (result.ok) {
      attachDelivery(kafka, { ...base, envelope: result.envelope, settled: false });
      return true;
    }
    const delivery: InboxDelivery = { ...base, envelope: undefined, settled: true };
    const tracker = session.begin(position.topic, position.partition, delivery.offset);
    try {
      await this.deadLetters.record(delivery, result.code, result.reason, 0);
    } catch (error) {
      tracker.abandon(delivery.offset);
      throw error;
    }
    this.logger.warn(
      `rejected record consumer=${handler.consumer} topic=${position.topic} partition=${position.partition} ` +
        `offset=${position.offset} event_id=${headers.event_id ?? '-'} type=${headers.event_type ?? '-'} ` +
        `reason=${result.code}: ${result.reason} stage=guard`,
    );
    if (batch) {
      batch.onCommit(() => session.finish(tracker, delivery.offset));
      batch.onRollback(() => tracker.abandon(delivery.offset));
    } else session.finish(tracker, delivery.offset);
    attachDelivery(kafka, delivery);
    return true;
  }
}
