import { MAX_RECORD_HEADERS, TOO_MANY_HEADERS_HEADER } from '../kafkajs/header-decoding';
import { UNDECODABLE_BATCH_HEADER } from '../kafkajs/undecodable-batch';
import { createRecordsBatch, readRecordsBatch, Reader } from '@platformatic/kafka';
import { crcHolds } from './batch-crc';
import { fetchedBatch } from './fetched-batch';
import { PartitionPositions } from './partition-positions';
import { messageOf } from './platformatic-message';
import type { FetchResponsePartition } from './undecodable-probe';

const b = (s: string) => Buffer.from(s);
const record = (headers: [Buffer | null, Buffer | null][]) => ({
  offset: 7n,
  timestamp: 1n,
  key: b('k'),
  value: b('v'),
  headers,
});

describe('platformatic messageOf', () => {
  it('gives headers as ServerKafka does: names as strings, a repeated name as an array, __proto__ an own header', () => {
    const m = messageOf(
      record([
        [b('a'), b('1')],
        [b('a'), b('2')],
        [b('__proto__'), b('x')],
      ]),
    );
    expect(m.offset).toBe('7');
    expect(m.headers!['a']).toEqual([b('1'), b('2')]);
    expect(Object.hasOwn(m.headers!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(m.headers)).toBe(Object.prototype);
  });

  it('replaces more headers than the cap, and an undecodable batch offset, by the marker the decoder rejects', () => {
    const many = Array.from({ length: MAX_RECORD_HEADERS + 1 }, (_, i) => [b(`h${i}`), b('')]);
    expect(messageOf(record(many as [Buffer, Buffer][])).headers).toEqual({
      [TOO_MANY_HEADERS_HEADER]: String(MAX_RECORD_HEADERS + 1),
    });
    expect(messageOf({ ...record([]), undecodable: 'unknown codec 5' }).headers).toEqual({
      [UNDECODABLE_BATCH_HEADER]: 'unknown codec 5',
    });
  });
});

describe('PartitionPositions', () => {
  it('keeps a partition kept over a rebalance, forgets a revoked one and its pause, and makes a seek stale', () => {
    const positions = new PartitionPositions();
    positions.assign({ t: [0, 1] });
    const [p0, p1] = positions.unknown();
    p0!.offset = 5n;
    p1!.offset = 9n;
    positions.pause('t', 1);
    expect(positions.fetchable()).toEqual([p0]);
    const epoch = p0!.epoch;
    positions.assign({ t: [0] });
    expect(positions.current(p0!, epoch)).toBe(true);
    expect(positions.current(p1!, p1!.epoch)).toBe(false);
    positions.assign({ t: [0, 1] });
    expect(positions.unknown().map((p) => p.partition)).toEqual([1]); // read again from the group
    positions.seek('t', 0, 3n);
    expect(positions.current(p0!, epoch)).toBe(false);
    expect(p0!.offset).toBe(3n);
  });
});

describe('fetchedBatch', () => {
  it('leaves out control records and records before the position, and ends at the last offset fetched', () => {
    // Compressed (attribute bits 0-2): the CRC is not checked again on decoded records.
    const batch = (firstOffset: bigint, count: number, attributes = 1) => ({
      firstOffset,
      attributes,
      lastOffsetDelta: count - 1,
      firstTimestamp: 100n,
      records: Array.from({ length: count }, (_, i) => ({
        offsetDelta: i,
        timestampDelta: BigInt(i),
        key: null,
        value: b(String(i)),
        headers: [],
      })),
    });
    const fetched = {
      highWatermark: 12n,
      records: [batch(0n, 4), batch(4n, 1, 1 | (1 << 5)), batch(5n, 2)],
    } as unknown as FetchResponsePartition;
    const got = fetchedBatch({ topic: 't', partition: 0, live: () => true }, fetched, 2n)!;
    expect(got.records.map((r) => r.offset)).toEqual([2n, 3n, 5n, 6n]);
    expect(got.last).toBe(6n);
    expect(got.highWatermark).toBe(12n);
  });
});

describe('crcHolds', () => {
  it("checks an uncompressed batch's CRC-32C on what @platformatic/kafka decoded, which it does not", () => {
    const bytes = createRecordsBatch([
      { topic: 't', key: b('k'), value: b('{"a":1}'), headers: new Map([[b('h'), b('v')]]) },
      { topic: 't', value: b('second'), timestamp: -5n },
    ]).buffer;
    expect(crcHolds(readRecordsBatch(Reader.from(bytes)))).toBe(true);
    bytes[bytes.length - 3]! ^= 0x01; // a bit of the last value, under the CRC
    const damaged = readRecordsBatch(Reader.from(bytes));
    expect(damaged.records).toHaveLength(2); // decoded all the same
    expect(crcHolds(damaged)).toBe(false);
  });
});

describe('platformaticKafka', () => {
  it('refuses with a typed error naming the package to install when @platformatic/kafka is missing', () => {
    jest.isolateModules(() => {
      jest.doMock('@platformatic/kafka', () => {
        throw Object.assign(new Error("Cannot find module '@platformatic/kafka'"), {
          code: 'MODULE_NOT_FOUND',
        });
      });
      const { platformaticKafka } = jest.requireActual<{ platformaticKafka: () => unknown }>(
        './platformatic-kafka',
      );
      const refusal = (() => {
        try {
          platformaticKafka();
        } catch (error) {
          return error as Error;
        }
        return undefined;
      })();
      expect(refusal?.constructor.name).toBe('OptionalPeerMissingError');
      expect(() => platformaticKafka()).toThrow(/npm i @platformatic\/kafka/);
    });
  });
});
