import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Consumer } from 'kafkajs';
import { InboxConsumerRegistry } from '../../consumer/inbox-consumer.registry';
import { decodeEnvelope, headerStrings } from '../../envelope/envelope.decoder';
import { InboxMisuseError } from '../../errors/inbox-misuse.error';
import { currentInboxBatch } from '../../transport/inbox-batch.context';
import { attachDelivery } from './inbox-delivery';
import { InboxHandlerPolicies } from './inbox-handler.policies';
import { kafkaContextOf } from './kafka-context';

/**
 * Validates the envelope before anything else runs (required headers, event_id a UUID,
 * known type, supported schema_version, size, JSON) and attaches the verdict to the
 * record's context: accepted with its envelope, or refused with a reason. It records
 * nothing and never denies: a guard returning `false` makes Nest throw, and kafkajs would
 * redeliver the bad record forever. The interceptor settles both verdicts.
 * @internal
 */
@Injectable()
export class InboxGuard implements CanActivate {
  constructor(
    @Inject(InboxHandlerPolicies) private readonly policies: InboxHandlerPolicies,
    @Inject(InboxConsumerRegistry) private readonly registry: InboxConsumerRegistry,
  ) {}

  canActivate(context: ExecutionContext): boolean {
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
    // Inside a chunk whose rows were registered ahead: the very result registration used.
    const ahead = currentInboxBatch()?.ahead.decodedOf(message);
    const headers = ahead?.headers ?? headerStrings(message.headers);
    const result =
      ahead?.results.get(handler.policy) ?? decodeEnvelope(message, handler.policy, headers);
    attachDelivery(kafka, {
      ...handler,
      session: this.registry.attach(kafka.getConsumer() as unknown as Consumer),
      context: kafka,
      position: {
        topic: kafka.getTopic(),
        partition: kafka.getPartition(),
        offset: message.offset,
      },
      offset: BigInt(message.offset),
      headers,
      envelope: result.ok ? result.envelope : undefined,
      rejection: result.ok ? undefined : { code: result.code, reason: result.reason },
    });
    return true;
  }
}
