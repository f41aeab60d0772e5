import type { Consumer } from '@platformatic/kafka';
import type { Position } from './partition-positions';

/** One partition of a fetch response. @internal */
export type FetchResponsePartition = Awaited<
  ReturnType<Consumer['fetch']>
>['responses'][number]['partitions'][number];

/** Fetches partitions of one leader, answering in their order. @internal */
export type FetchOne = (
  positions: readonly Position[],
  partitionMaxBytes: number,
) => Promise<(FetchResponsePartition | undefined)[]>;

/** The offsets of a batch the client could not decode, and why. @internal */
export interface UndecodableOffsets {
  readonly undecodable: string;
  readonly offsets: bigint[];
  readonly hwm: bigint;
}

/** What fetching one partition alone gave. @internal */
export type Isolated = FetchResponsePartition | UndecodableOffsets | 'out-of-range' | undefined;

/**
 * Finds, after a failed fetch, which partition the failure belongs to: each is fetched alone,
 * with a client of its own that does not retry. A batch `@platformatic/kafka` cannot decode
 * (unknown codec, corrupt compressed data, cut short) fails every fetch at its offsets: they are
 * found one fetch each, up to the first offset that decodes, and become rejected offsets instead
 * of a stall. @internal
 */
export class UndecodableProbe {
  private own: Consumer | undefined;

  constructor(
    private readonly consumer: Consumer,
    private readonly create: () => Consumer,
  ) {}

  /** The probing client (created on first use). */
  client(): Consumer {
    return (this.own ??= this.create());
  }

  async close(): Promise<void> {
    await this.own?.close().catch(() => undefined);
  }

  /**
   * Fetches the batch at `position` alone (the broker sends one batch for one byte): its records,
   * its undecodable offsets, or undefined (fetched again by the loop).
   */
  async isolate(position: Position, fetch: FetchOne): Promise<Isolated> {
    try {
      return (await fetch([position], 1))[0];
    } catch (error) {
      const found = (error as { findBy?: (k: string, v: string) => unknown }).findBy;
      if (found?.call(error, 'apiId', 'OFFSET_OUT_OF_RANGE')) return 'out-of-range';
      return isUndecodable(error) ? this.range(position, fetch, detailOf(error)) : undefined;
    }
  }

  /** The undecodable offsets from `position` on: up to the first that decodes or the log end. */
  private async range(position: Position, fetch: FetchOne, detail: string) {
    const { topic, partition } = position;
    const from = position.offset!;
    const ends = await this.consumer.listOffsets({
      topics: [topic],
      partitions: { [topic]: [partition] },
    });
    const hwm = ends.get(topic)?.[partition] ?? from + 1n;
    let end = from + 1n;
    for (; end < hwm; end += 1n) {
      try {
        const [next] = await fetch([{ ...position, offset: end }], 1);
        const first = next?.records?.[0]?.firstOffset;
        if (first !== undefined && first > from && first < end) end = first;
        break;
      } catch (error) {
        if (!isUndecodable(error)) break;
      }
    }
    const offsets: bigint[] = [];
    for (let o = from; o < end; o += 1n) offsets.push(o);
    return { undecodable: detail, offsets, hwm: hwm > end ? hwm : end };
  }
}

/** A failure of decoding (not one of the client's network or protocol errors). */
function isUndecodable(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    code === 'PLT_KFK_UNSUPPORTED_COMPRESSION' ||
    !(typeof code === 'string' && code.startsWith('PLT_KFK_'))
  );
}

/** Why, in the rejection's words (lower-case words and numbers, never bytes). */
function detailOf(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const codec = /bitmask (\d+)/.exec(String(message));
  if (codec) return `unknown codec ${codec[1]}`;
  if (/zstd is not supported/.test(String(message))) return 'zstd unsupported'; // Node.js < 22.15
  if (String(code).startsWith('Z_')) return 'gzip corrupt';
  if ((error as Error).name === 'RuntimeError') return 'wasm codec failed'; // snappy, lz4
  return error instanceof RangeError ? 'truncated batch' : 'corrupt batch';
}
