import { decodeEnvelope } from '../envelope/envelope.decoder';
import type { ChunkRecord, Verdict } from '../chunk/chunk';
import type { DecodeRules } from '../envelope/envelope.decoder';

/** Stage 1: each record's verdict under a route's rules: its event, or why it is refused. @internal */
export function decodeFor(rules: DecodeRules, records: readonly ChunkRecord[]): Verdict[] {
  return records.map((record) => {
    const result = decodeEnvelope(record.message, rules, record.headers);
    return result.ok
      ? { record, event: result.envelope }
      : { record, rejection: { code: result.code, reason: result.reason } };
  });
}
