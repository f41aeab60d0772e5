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
 * Validates the envelope before anything else runs (required headers, event_id a UUID,
 * known type, supported schema_version, size, JSON) and attaches the verdict to the
 * record's context: accepted with its envelope, or refused with a reason. It records
 * nothing and never denies: a guard returning `false` makes Nest throw, and kafkajs would
 * redeliver the bad record forever. The interceptor settles both verdicts. When
 * `InboxKafkaServer` hands a whole chunk to an `@InboxBatchHandler` in one call, every record
 * of the chunk gets its verdict (`chunk`).
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
