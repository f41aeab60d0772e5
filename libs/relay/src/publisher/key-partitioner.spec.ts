/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs' murmur2 module has no types */
import fc from 'fast-check';
import { Partitioners, type PartitionerArgs } from 'kafkajs';
import { keyPartition, murmur2, partitionOf, recordingPartitioner } from './key-partitioner';

const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2') as (
  key: string | Buffer,
) => number;

const partitionMetadata = (count: number) =>
  Array.from({ length: count }, (_, partitionId) => ({
    partitionId,
    leader: 1,
    replicas: [1],
    isr: [1],
    partitionErrorCode: 0,
  }));

describe('murmur2', () => {
  it('gives the hash of kafkajs for ASCII, Unicode and binary keys of every length', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
        ),
        (key) => expect(murmur2(key)).toBe(kafkajsMurmur2(key)),
      ),
      { numRuns: 5000 },
    );
  });

  it('matches the Java client on known keys', () => {
    // Values of org.apache.kafka.common.utils.Utils.murmur2 (the Java producer's).
    expect(murmur2('21')).toBe(-973932308);
    expect(murmur2('foobar')).toBe(-790332482);
    expect(murmur2('a-little-bit-long-string')).toBe(-985981536);
    expect(murmur2('a-little-bit-longer-string')).toBe(-1486304829);
    expect(murmur2('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8')).toBe(-58897971);
    expect(murmur2('abc')).toBe(479470107);
  });
});

describe('recordingPartitioner', () => {
  it("chooses what kafkajs' default partitioner chooses, and records it on the message", () => {
    const ours = recordingPartitioner(Partitioners.DefaultPartitioner());
    const theirs = Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 30 }),
        fc.integer({ min: 1, max: 64 }),
        (key, count) => {
          const args: PartitionerArgs = {
            topic: 't',
            partitionMetadata: partitionMetadata(count),
            message: { key, value: 'v' },
          };
          const partition = ours(args);
          expect(partition).toBe(theirs(args));
          expect(partition).toBe(keyPartition(key, count));
          expect(partitionOf(args.message)).toBe(partition);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('hands records with an explicit partition or without a key to the fallback, and records its choice', () => {
    const ours = recordingPartitioner(({ message }) => message.partition ?? 4);
    const explicit = { key: 'k', value: 'v', partition: 2 };
    const keyless = { key: null, value: 'v' };
    expect(ours({ topic: 't', partitionMetadata: partitionMetadata(6), message: explicit })).toBe(
      2,
    );
    expect(ours({ topic: 't', partitionMetadata: partitionMetadata(6), message: keyless })).toBe(4);
    expect([partitionOf(explicit), partitionOf(keyless), partitionOf({ value: 'v' })]).toEqual([
      2, 4, -1,
    ]);
  });
});
