import { createHash } from 'node:crypto';
import { valueBytes } from '../envelope/envelope.decoder';
import type { RejectionEvidence } from '../store/inbox.store';
import type { InboxDelivery } from '../chunk/inbox-delivery';

const MAX_KEY_BYTES = 1024;
const MAX_HEADER_BYTES = 64 * 1024;

function keyBytes(key: unknown): Buffer | undefined {
  if (Buffer.isBuffer(key)) return key;
  if (typeof key === 'string') return Buffer.from(key);
  return undefined;
}

/**
 * What a rejected row keeps of a record's bytes: key (1 KiB max), headers as decoded (JSON,
 * 64 KiB max), and the value's length and SHA-256, never the value. Never throws. @internal
 */
export function rejectionEvidence(delivery: InboxDelivery): RejectionEvidence {
  try {
    const { message } = delivery;
    const key = keyBytes(message.key);
    const headers = Buffer.from(JSON.stringify(delivery.headers));
    const value = valueBytes(message.value);
    return {
      key: key && key.length <= MAX_KEY_BYTES ? key : undefined,
      headers: headers.length <= MAX_HEADER_BYTES ? headers : undefined,
      valueLength: value?.length,
      valueSha256: value ? createHash('sha256').update(value).digest() : undefined,
    };
  } catch {
    return {};
  }
}
