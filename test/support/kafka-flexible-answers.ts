/**
 * The flexible versions (compact strings and arrays, tagged fields) of the three answers
 * `KafkaFetchRewriter` rewrites, as @platformatic/kafka speaks them: Metadata v9-v12,
 * FindCoordinator v4-v6, Fetch v12-v17 (topic ids from v13, learnt from Metadata answers).
 */

/** Rewrites one partition's record bytes (`topic` is the name, or the id when not learnt). */
type Rewrite = (records: Buffer, at: { topic: string; partition: number }) => Buffer;

class FlexReader {
  constructor(
    readonly buf: Buffer,
    public at: number,
  ) {}
  skip(n: number) {
    this.at += n;
  }
  int32(): number {
    this.at += 4;
    return this.buf.readInt32BE(this.at - 4);
  }
  uvarint(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.buf[this.at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  }
  /** A compact (nullable) string. */
  string(): string | null {
    const n = this.uvarint() - 1;
    this.at += Math.max(n, 0);
    return n < 0 ? null : this.buf.toString('utf8', this.at - n, this.at);
  }
  uuid(): string {
    this.at += 16;
    return this.buf.toString('hex', this.at - 16, this.at);
  }
  tags(): void {
    for (let n = this.uvarint(); n > 0; n -= 1) {
      this.uvarint();
      this.at += this.uvarint();
    }
  }
  array(each: () => void): void {
    for (let n = this.uvarint() - 1; n > 0; n -= 1) each();
  }
}

const uvarint = (value: number): Buffer => {
  const bytes: number[] = [];
  for (; value >= 0x80; value = Math.floor(value / 128)) bytes.push((value & 0x7f) | 0x80);
  bytes.push(value);
  return Buffer.from(bytes);
};

/** Metadata v9-v12: the brokers' ports become `port` (in place); learns topic ids. */
export function flexibleMetadata(
  frame: Buffer,
  version: number,
  port: number,
  ids: Map<string, string>,
) {
  const r = new FlexReader(frame, 8);
  r.tags();
  r.skip(4); // throttle time
  r.array(() => {
    r.skip(4); // node id
    r.string(); // host
    frame.writeInt32BE(port, r.at);
    r.skip(4);
    r.string(); // rack
    r.tags();
  });
  r.string(); // cluster id
  r.skip(4); // controller id
  r.array(() => {
    r.skip(2); // error code
    const name = r.string();
    const id = version >= 10 ? r.uuid() : undefined;
    if (name !== null && id !== undefined) ids.set(id, name);
    r.skip(1); // is internal
    r.array(() => {
      r.skip(2 + 4 + 4 + 4); // error, index, leader, leader epoch
      for (let k = 0; k < 3; k += 1) r.array(() => r.skip(4)); // replicas, isr, offline
      r.tags();
    });
    r.skip(4); // authorized operations
    r.tags();
  });
  return frame;
}

/** FindCoordinator v4-v6: each coordinator's port becomes `port` (in place). */
export function flexibleFindCoordinator(frame: Buffer, port: number) {
  const r = new FlexReader(frame, 8);
  r.tags();
  r.skip(4); // throttle time
  r.array(() => {
    r.string(); // key
    r.skip(4); // node id
    r.string(); // host
    frame.writeInt32BE(port, r.at);
    r.skip(4 + 2); // port, error code
    r.string(); // error message
    r.tags();
  });
  return frame;
}

/** Fetch v12-v17: each partition's records through `rewrite`; the frame rebuilt around them. */
export function flexibleFetch(
  frame: Buffer,
  version: number,
  ids: Map<string, string>,
  rewrite: Rewrite,
) {
  const r = new FlexReader(frame, 8);
  const parts: Buffer[] = [];
  let copied = 4;
  r.tags();
  r.skip(4 + 2 + 4); // throttle time, error code, session id
  r.array(() => {
    const topic = version >= 13 ? (ids.get(r.uuid()) ?? '') : (r.string() ?? '');
    r.array(() => {
      const partition = r.int32();
      r.skip(2 + 8 + 8 + 8); // error, high watermark, last stable, log start
      r.array(() => (r.skip(16), r.tags())); // aborted transactions
      r.skip(4); // preferred read replica
      const sizeAt = r.at;
      const size = r.uvarint() - 1;
      if (size > 0) {
        const rewritten = rewrite(frame.subarray(r.at, r.at + size), { topic, partition });
        parts.push(frame.subarray(copied, sizeAt), uvarint(rewritten.length + 1), rewritten);
        r.skip(size);
        copied = r.at;
      }
      r.tags();
    });
    r.tags();
  });
  r.tags();
  if (r.at !== frame.length) throw new Error(`Fetch v${version} response not parsed to its end`);
  parts.push(frame.subarray(copied));
  const body = Buffer.concat(parts);
  const prefix = Buffer.alloc(4);
  prefix.writeInt32BE(body.length);
  return Buffer.concat([prefix, body]);
}
