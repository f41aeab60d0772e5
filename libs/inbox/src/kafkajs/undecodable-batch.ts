import { NestOutboxError } from '@nest-outbox/core/internal';

/**
 * A record batch that cannot be decoded; `detail` (lower-case words and numbers, no payload
 * bytes) says why. Never leaves the inbox's kafkajs: its records become rejected markers. @internal
 */
export class UndecodableBatchError extends NestOutboxError {
  constructor(readonly detail: string) {
    super(
      `record batch cannot be decoded (${detail}): its offsets are rejected as undecodable_batch`,
    );
  }
}

/** The one header each marker record of an undecodable batch carries (value: why). @internal */
export const UNDECODABLE_BATCH_HEADER = 'x-nest-outbox-undecodable-batch';

/**
 * The rejection reason of a record carrying `UNDECODABLE_BATCH_HEADER` in the batch decoder's
 * own form (a producer could send that header too). @internal
 */
export function undecodableBatch(headers: Record<string, string>): string | undefined {
  const detail = headers[UNDECODABLE_BATCH_HEADER];
  if (detail === undefined) return undefined;
  const named = /^[a-z0-9]{1,20}( [a-z0-9-]{1,20}){0,3}$/.test(detail);
  return `record of a batch that could not be decoded (${named ? detail : 'unknown failure'})`;
}
