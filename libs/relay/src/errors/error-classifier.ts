import type { ErrorKind } from './error-kind';
import { NoTopicError } from './no-topic.error';
import { PublishTimeoutError } from './publish-timeout.error';
import { UnencodableEventError } from './unencodable-event.error';

/** Kafka protocol error types that no retry can fix. */
const PERMANENT = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'INVALID_TOPIC_EXCEPTION',
  'TOPIC_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'INVALID_RECORD',
  'CORRUPT_MESSAGE',
  'POLICY_VIOLATION',
  'INVALID_REQUIRED_ACKS',
  'UNSUPPORTED_VERSION',
  'UNSUPPORTED_COMPRESSION_TYPE',
  'UNROUTABLE',
]);

const THROTTLED = new Set(['THROTTLING_QUOTA_EXCEEDED']);

interface ErrorLike {
  name?: unknown;
  type?: unknown;
  code?: unknown;
  cause?: unknown;
  originalError?: unknown;
  errors?: unknown;
}

/** Every error in the chain, depth first: the error, its causes, aggregated errors. @internal */
export function* errorChain(error: unknown, depth = 0): Generator<ErrorLike> {
  if (depth > 8 || typeof error !== 'object' || error === null) return;
  const e = error as ErrorLike;
  yield e;
  if (e.cause && e.cause !== error) yield* errorChain(e.cause, depth + 1);
  if (e.originalError && e.originalError !== error) yield* errorChain(e.originalError, depth + 1);
  if (Array.isArray(e.errors)) for (const inner of e.errors) yield* errorChain(inner, depth + 1);
}

/**
 * Built-in classification of a publish error: protocol errors no retry can fix are permanent,
 * throttling is throttled, the rest transient (failed SASL or TLS too: the relay's access
 * fails, not the event).
 * @publicApi
 */
export function classifyKafkaError(error: unknown): ErrorKind {
  if (error instanceof PublishTimeoutError) return 'transient';
  if (error instanceof NoTopicError || error instanceof UnencodableEventError) return 'permanent';
  for (const e of errorChain(error)) {
    if (typeof e.type === 'string') {
      if (PERMANENT.has(e.type)) return 'permanent';
      if (THROTTLED.has(e.type)) return 'throttled';
    }
  }
  return 'transient';
}

/** True when `error` or an error in its chain is a Kafka protocol error of one of `types`. */
export function hasKafkaErrorType(error: unknown, types: ReadonlySet<string>): boolean {
  for (const e of errorChain(error))
    if (typeof e.type === 'string' && types.has(e.type)) return true;
  return false;
}

/** A short description of an error for logs and `last_error` (never a payload). */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (const e of errorChain(error)) {
    const name = typeof e.name === 'string' ? e.name : 'Error';
    const type = typeof e.type === 'string' ? `[${e.type}]` : '';
    const message = (e as { message?: unknown }).message;
    parts.push(`${name}${type}: ${typeof message === 'string' ? message : ''}`);
    if (parts.length >= 3) break;
  }
  return (parts.join(' <- ') || String(error)).slice(0, 1000);
}
