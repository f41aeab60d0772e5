import { FetchGuardError } from './fetch-guard.error';

/** Reads the big-endian fields of one Kafka frame; a read past its end is a `FetchGuardError`. @internal */
export class WireReader {
  constructor(
    readonly frame: Buffer,
    public at: number,
  ) {}

  skip(n: number): void {
    this.at += n;
    if (this.at > this.frame.length)
      throw new FetchGuardError(
        'a Fetch frame ends before its fields do: the connection is closed and kafkajs reconnects',
      );
  }

  int16(): number {
    this.skip(2);
    return this.frame.readInt16BE(this.at - 2);
  }

  int32(): number {
    this.skip(4);
    return this.frame.readInt32BE(this.at - 4);
  }

  int64(): bigint {
    this.skip(8);
    return this.frame.readBigInt64BE(this.at - 8);
  }

  /** An int16-length string (-1: null). */
  string(): string | null {
    const length = this.int16();
    this.skip(Math.max(length, 0));
    return length < 0 ? null : this.frame.toString('utf8', this.at - length, this.at);
  }
}
