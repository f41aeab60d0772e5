import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Consumer } from 'kafkajs';
import { InboxConsumerRegistry } from '../../consumer/inbox-consumer.registry';
import { decodeEnvelope, headerStrings, type ParsedRecord } from '../../envelope/envelope.decoder';
import { InboxMisuseError } from '../../errors/inbox-misuse.error';
import { currentInboxBatch } from '../../chunk/inbox-batch.context';
import { attachDelivery, type ChunkDelivery, type ChunkEntry } from '../delivery/inbox-delivery';
import { InboxHandlerPolicies } from './inbox-handler.policies';
import { kafkaContextOf } from './kafka-context';

/**
 * Validates the envelope and attaches the verdict to the record's context. Never denies: a
 * `false` guard makes Nest throw and kafkajs redeliver forever; the interceptor settles both
 * verdicts (every record's, for a chunk call). @internal
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
    const message = kafka.getMessage() as unknown as ParsedRecord & { offset: string };
    const batch = currentInboxBatch();
    const at = { topic: kafka.getTopic(), partition: kafka.getPartition() };
    // The record's verdict and place; inside a chunk whose rows were registered ahead, from
    // the very result registration used.
    const entryOf = (record: ParsedRecord, offset: string): ChunkEntry => {
      const headers = batch?.ahead.headersOf(record) ?? headerStrings(record.headers);
      const result =
        batch?.ahead.resultOf(record, handler.policy) ??
        decodeEnvelope(record, handler.policy, headers);
      return {
        message: record,
        position: { topic: at.topic, partition: at.partition, offset },
        offset: BigInt(offset),
        headers,
        envelope: result.ok ? result.envelope : undefined,
        rejection: result.ok ? undefined : { code: result.code, reason: result.reason },
      };
    };
    let chunk: ChunkDelivery | undefined;
    if (batch?.chunkCall) {
      if (!handler.batch)
        throw new InboxMisuseError('a chunk was handed to an @InboxHandler (not a batch handler)');
      const entries = batch.chunkCall.map(({ offset, record }) => entryOf(record, offset));
      chunk = { entries, fresh: [] };
    }
    attachDelivery(kafka, {
      ...handler,
      session: this.registry.attach(kafka.getConsumer() as unknown as Consumer),
      context: kafka,
      ...(chunk
        ? {
            message,
            position: { ...at, offset: message.offset },
            offset: BigInt(message.offset),
            headers: {},
            envelope: undefined,
            rejection: undefined,
            chunk,
          }
        : entryOf(message, message.offset)),
    });
    return true;
  }
}
