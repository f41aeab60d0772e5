import { UndecodableBatchError } from './undecodable-batch';

/**
 * Reads Kafka's zigzag varints and length-prefixed fields of a record inside `[at, end)`;
 * anything past `end` or longer than Kafka's encoding allows is a malformed record. @internal
 */
export class RecordCursor {
  constructor(
    readonly buf: Buffer,
    public at: number,
    public end: number,
  ) {}

  /** A zigzag varint of at most `maxBytes` bytes (5: int32, 10: int64). */
  varint(maxBytes = 5): number {
    let unsigned = 0;
    for (let i = 0, scale = 1; i < maxBytes; i += 1, scale *= 128) {
      if (this.at >= this.end) throw new UndecodableBatchError('record malformed');
      const byte = this.buf[this.at++]!;
      unsigned += (byte & 0x7f) * scale;
      if (byte < 0x80) return unsigned % 2 === 0 ? unsigned / 2 : -(unsigned + 1) / 2;
    }
    throw new UndecodableBatchError('record malformed');
  }

  /** Skips `n` bytes of the record. */
  skip(n: number): void {
    if (this.at + n > this.end) throw new UndecodableBatchError('record malformed');
    this.at += n;
  }

  /** Skips a varint-length field (-1: null); returns its length. */
  skipField(): number {
    const length = this.varint();
    if (length < -1 || this.at + Math.max(length, 0) > this.end)
      throw new UndecodableBatchError('record malformed');
    this.at += Math.max(length, 0);
    return length;
  }

  /** A varint-length field (-1: null), a view of the bytes. */
  field(): Buffer | null {
    const length = this.skipField();
    return length < 0 ? null : this.buf.subarray(this.at - length, this.at);
  }
}

/** Kafka's zigzag varint of `value` (an int32). @internal */
export function varint(value: number): Buffer {
  let unsigned = value >= 0 ? value * 2 : -value * 2 - 1;
  const bytes: number[] = [];
  while (unsigned >= 0x80) {
    bytes.push(unsigned % 0x80 | 0x80);
    unsigned = Math.floor(unsigned / 0x80);
  }
  bytes.push(unsigned);
  return Buffer.from(bytes);
}

/** A varint-length field as record bytes hold it. @internal */
export const fieldBytes = (bytes: Buffer): Buffer => Buffer.concat([varint(bytes.length), bytes]);

/** A record header (`key`, `value`) as record bytes hold it. @internal */
export const headerBytes = (key: string, value: string): Buffer =>
  Buffer.concat([fieldBytes(Buffer.from(key)), fieldBytes(Buffer.from(value))]);
