import type { Logger } from '@nestjs/common';
import { logLine } from '@nest-outbox/core/internal';
import type { InboxMetrics } from '../metrics/inbox.metrics';
import { partitionKey } from './consumer-snapshot';

/**
 * Why a fetched record is refused before any handler sees it: its offset is one the partition's
 * log cannot have at that place. Never a row (the offset may belong to another record), never
 * resolved nor committed. @internal
 */
export type RefusedOffsetCode = 'offset_beyond_log_end' | 'offset_not_increasing';

/** The records of one fetched batch refused with one code, in fetch order. @internal */
export interface RefusedOffsets {
  readonly code: RefusedOffsetCode;
  readonly offsets: readonly bigint[];
}

/**
 * Splits a fetched batch by the offsets its records claim (a batch's base offset is not covered
 * by its CRC, so corrupt bytes can claim any): kept are those below the high watermark the broker
 * reported and past every offset kept before them; the others are refused. Committing a record
 * past the log end would make the group's next fetch fail with OffsetOutOfRange. @internal
 */
export function offsetsInLog<M extends { readonly offset: string }>(
  messages: readonly M[],
  highWatermark: string,
): { kept: M[]; refused: RefusedOffsets[] } {
  const logEnd = BigInt(highWatermark);
  const kept: M[] = [];
  const refused = new Map<RefusedOffsetCode, bigint[]>();
  let last: bigint | undefined;
  for (const message of messages) {
    const offset = BigInt(message.offset);
    const code: RefusedOffsetCode | undefined =
      offset >= logEnd
        ? 'offset_beyond_log_end'
        : last !== undefined && offset <= last
          ? 'offset_not_increasing'
          : undefined;
    if (code === undefined) {
      kept.push(message);
      last = offset;
    } else if (refused.has(code)) refused.get(code)!.push(offset);
    else refused.set(code, [offset]);
  }
  return { kept, refused: [...refused].map(([code, offsets]) => ({ code, offsets })) };
}

/**
 * Counts refused records as rejected under their code (`nest_outbox_inbox_events_rejected_total`)
 * and logs them by position, once per partition and refusal: the same bad bytes fetched again
 * (kafkajs fetches from the first offset not resolved) are not counted twice. @internal
 */
export class OffsetRefusals {
  private readonly last = new Map<string, string>();

  constructor(
    private readonly metrics: InboxMetrics,
    private readonly logger: Logger,
  ) {}

  refuse(
    at: { topic: string; partition: number; highWatermark: string },
    { code, offsets }: RefusedOffsets,
    consumers: readonly string[],
  ): void {
    const key = `${partitionKey(at.topic, at.partition)}:${code}`;
    const seen = `${offsets[0]}+${offsets.length}`;
    if (offsets.length === 0 || this.last.get(key) === seen) return;
    this.last.set(key, seen);
    for (const consumer of consumers)
      this.metrics.rejected.inc({ consumer, topic: at.topic, reason: code }, offsets.length);
    this.logger.warn(
      logLine('refused records: never handled nor committed', {
        topic: at.topic,
        partition: at.partition,
        code,
        records: offsets.length,
        first_offset: String(offsets[0]),
        high_watermark: at.highWatermark,
      }),
    );
  }
}
