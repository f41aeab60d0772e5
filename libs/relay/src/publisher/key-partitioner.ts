import type { Message, PartitionerArgs } from 'kafkajs';

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Murmur2 (Kafka's, as Java's client and kafkajs compute it) of `length` bytes `at(i)`. */
function murmur2Of(length: number, at: (i: number) => number): number {
  let h = SEED ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = at(i) | (at(i + 1) << 8) | (at(i + 2) << 16) | (at(i + 3) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & 3;
  if (tail === 3) h ^= at(whole + 2) << 16;
  if (tail >= 2) h ^= at(whole + 1) << 8;
  if (tail >= 1) h = Math.imul(h ^ at(whole), M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Kafka's murmur2 of a key's UTF-8 bytes, as a signed 32-bit integer (kafkajs' and Java's
 * partitioner hash), in 32-bit integer math rather than kafkajs' `Long` and a Buffer per key.
 * @internal
 */
export function murmur2(key: string | Buffer): number {
  if (typeof key === 'string' && isAscii(key))
    return murmur2Of(key.length, (i) => key.charCodeAt(i));
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  return murmur2Of(bytes.length, (i) => bytes[i]!);
}

/** The partition kafkajs' default partitioner gives a keyed record. @internal */
export function keyPartition(key: string | Buffer, partitionCount: number): number {
  return (murmur2(key) & 0x7fffffff) % partitionCount;
}

/** Where the partitioner put each message (the message objects the relay built). */
const placed = new WeakMap<Message, number>();

/**
 * A kafkajs partitioner that chooses what `fallback` would (keyed records by `murmur2`) and
 * records each message's partition for `partitionOf`.
 * @internal
 */
export function recordingPartitioner(
  fallback: (args: PartitionerArgs) => number,
): (args: PartitionerArgs) => number {
  return (args) => {
    const { message } = args;
    const partition =
      message.partition == null && message.key != null
        ? keyPartition(message.key, args.partitionMetadata.length)
        : fallback(args);
    placed.set(message, partition);
    return partition;
  };
}

/** The partition `recordingPartitioner` chose for `message`, or -1. @internal */
export function partitionOf(message: Message): number {
  return placed.get(message) ?? -1;
}
