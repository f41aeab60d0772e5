/**
 * UUIDv7 benchmark: `node -r ts-node/register bench/uuid.bench.ts`.
 *
 * Decides whether the hand-written UUIDv7 generator the core used to have is worth keeping
 * over the `uuid` package's `v7()`: both generate BENCH_UUIDS (default 1,000,000) ids, three
 * rounds each, alternated; the figure that matters is the cost per id next to the cost of
 * one recorded event on the write path (a transaction doing a conditional UPDATE and an
 * INSERT: tens to hundreds of microseconds, see `bench:write`).
 * Last line: one JSON object.
 */
import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

const COUNT = Number(process.env.BENCH_UUIDS ?? 1_000_000);

/** The generator nest-outbox shipped before it used `uuid` (kept here as the reference). */
function handWritten(): () => string {
  let lastMs = 0;
  let sequence = 0;
  const pool = Buffer.alloc(16 * 256);
  let poolOffset = pool.length;
  const random16 = () => {
    if (poolOffset >= pool.length) {
      randomFillSync(pool);
      poolOffset = 0;
    }
    const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
    poolOffset += 16;
    return bytes;
  };
  return () => {
    const now = Date.now();
    if (now > lastMs) {
      lastMs = now;
      sequence = random16().readUInt16BE(0) & 0x3ff;
    } else {
      sequence = (sequence + 1) & 0xfff;
      if (sequence === 0) lastMs += 1;
    }
    const bytes = random16();
    const ms = lastMs;
    bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
    bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
    bytes[2] = (ms >>> 24) & 0xff;
    bytes[3] = (ms >>> 16) & 0xff;
    bytes[4] = (ms >>> 8) & 0xff;
    bytes[5] = ms & 0xff;
    bytes[6] = 0x70 | ((sequence >>> 8) & 0x0f);
    bytes[7] = sequence & 0xff;
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

/** Nanoseconds per id over `COUNT` ids. */
function measure(generate: () => string): number {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < COUNT; i++) sink += generate().length;
  const ns = Number(process.hrtime.bigint() - start) / COUNT;
  if (sink !== COUNT * 36) throw new Error('unexpected id length');
  return ns;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

const ours = handWritten();
const uuid = () => v7();
measure(ours); // warm-up of both
measure(uuid);
const oursNs: number[] = [];
const uuidNs: number[] = [];
for (let round = 0; round < 3; round++) {
  oursNs.push(measure(ours));
  uuidNs.push(measure(uuid));
}
const result = {
  bench: 'uuid-v7',
  ids: COUNT,
  hand_written_ns_per_id: Number(median(oursNs).toFixed(0)),
  uuid_package_ns_per_id: Number(median(uuidNs).toFixed(0)),
};
console.log(
  `hand-written ${result.hand_written_ns_per_id} ns/id, uuid v7() ${result.uuid_package_ns_per_id} ns/id ` +
    `(one recorded event costs tens of microseconds or more on the write path: ${((result.uuid_package_ns_per_id - result.hand_written_ns_per_id) / 1000).toFixed(3)} us difference per event)`,
);
console.log(JSON.stringify(result));
