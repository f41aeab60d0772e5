import { EventEmitter } from 'node:events';
import type { Logger } from '@nestjs/common';
import type { Consumer } from '@platformatic/kafka';
import { PACKED_HEADERS_HEADER } from '../kafkajs/header-decoding';
import { guardRecords } from '../kafkajs/record-batch.guard';
import { createRecordsBatch, readRecordsBatches, Reader } from '@platformatic/kafka';
import { fetchedBatch } from './fetched-batch';
import type { FetchedPartition } from './guarded-fetch';
import { PartitionPositions } from './partition-positions';
import { PlatformaticConsumerPort } from './platformatic-consumer.port';
import { PlatformaticFetchLoop } from './platformatic-fetch.loop';
import { messageOf } from './platformatic-message';

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

  it('unpacks the headers the record-batch guard packed, as the kafkajs path does', async () => {
    const many = Array.from({ length: 40 }, (_, i) => [b(`h${i % 20}`), b(String(i))]);
    const bytes = createRecordsBatch([
      { topic: 't', value: b('v'), headers: new Map(many as [Buffer, Buffer][]) },
    ]).buffer;
    const [batch] = readRecordsBatches(Reader.from(await guardRecords(bytes)));
    const [r] = batch!.records;
    expect(r!.headers.map(([k]) => String(k))).toEqual([PACKED_HEADERS_HEADER]);
    const m = messageOf({ ...record(r!.headers), headers: r!.headers });
    expect(m.headers!['h3']).toEqual([b('3'), b('23')]);
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
  const batch = (firstOffset: bigint, count: number, attributes = 0, producerId = -1n) => ({
    firstOffset,
    attributes,
    producerId,
    lastOffsetDelta: count - 1,
    firstTimestamp: 100n,
    records: Array.from({ length: count }, (_, i) => ({
      offsetDelta: i,
      timestampDelta: BigInt(i),
      key: attributes & (1 << 5) ? Buffer.from([0, 0, 0, 0]) : null,
      value: b(String(i)),
      headers: [],
    })),
  });
  const at = { topic: 't', partition: 0, live: () => true };

  it('leaves out control records and records before the position, and ends at the last offset fetched', () => {
    const fetched = {
      highWatermark: 12n,
      abortedTransactions: [],
      batches: [batch(0n, 4), batch(4n, 1, 1 << 5), batch(5n, 2)],
    } as unknown as FetchedPartition;
    const got = fetchedBatch(at, fetched, 2n)!;
    expect(got.records.map((r) => r.offset)).toEqual([2n, 3n, 5n, 6n]);
    expect(got.last).toBe(6n);
    expect(got.highWatermark).toBe(12n);
  });

  it("leaves out an aborted transaction's records up to its abort marker, and keeps the same producer's later ones", () => {
    const TX = 1 << 4;
    const fetched = {
      highWatermark: 9n,
      abortedTransactions: [{ producerId: 7n, firstOffset: 1n }],
      batches: [
        batch(0n, 1),
        batch(1n, 2, TX, 7n),
        batch(3n, 1, TX | (1 << 5), 7n), // its abort marker
        batch(4n, 2, TX, 7n), // a later, committed transaction
      ],
    } as unknown as FetchedPartition;
    expect(fetchedBatch(at, fetched, 0n)!.records.map((r) => r.offset)).toEqual([0n, 4n, 5n]);
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

describe('PlatformaticFetchLoop', () => {
  it('reports a crash after its retries fail in a row, and joins its group again', async () => {
    const events = new EventEmitter();
    let joins = 0;
    const consumer = Object.assign(events, {
      groupId: 'g',
      topics: { trackAll: () => undefined },
      joinGroup: () => {
        joins += 1;
        const assignments = [{ topic: 't', partitions: [0] }];
        events.emit('consumer:group:join', { groupId: 'g', assignments });
        return Promise.resolve('member');
      },
      listCommittedOffsets: () => Promise.reject(new Error('broker down')),
      clearMetadata: () => undefined,
    });
    const port = new PlatformaticConsumerPort(consumer as unknown as Consumer);
    const seen: string[] = [];
    const stop = port.listen({
      join: () => seen.push('join'),
      crash: (p) => seen.push(`crash ${p.error?.message} restart=${p.restart}`),
      rebalancing: () => undefined,
      stop: () => seen.push('stop'),
      connect: () => undefined,
      named: () => undefined,
      batchStart: () => undefined,
      batchEnd: () => undefined,
    });
    const logger = { warn: () => undefined, error: () => undefined } as unknown as Logger;
    const settings = { fromBeginning: true, partitionMaxBytes: 1, concurrency: 1, retries: 1 };
    const loop = new PlatformaticFetchLoop(
      port,
      ['t'],
      settings,
      {} as never,
      () => Promise.resolve(),
      logger,
    );
    await loop.start();
    const deadline = Date.now() + 10_000;
    while (joins < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await loop.stop();
    stop();
    expect(seen.slice(0, 3)).toEqual(['join', 'crash broker down restart=true', 'join']);
  });
});
