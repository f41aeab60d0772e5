/** The header cap of the inbox's Kafka records (applied by `record-batch.guard.ts`). @internal */

/**
 * The one header a record with too many headers gets instead (value: its header count); such
 * records, and records carrying it, are rejected as `too_many_headers`. @internal
 */
export const TOO_MANY_HEADERS_HEADER = 'x-nest-outbox-too-many-headers';

/** Headers decoded per record at most; the event contract uses about ten. @internal */
export const MAX_RECORD_HEADERS = 1000;
