import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import {
  batch,
  COMPRESS,
  decodeFetched,
  decodeStock,
  recordBatch,
  recordBytes,
  reseal,
  zstdFrame,
  type DecodedRecord,
  type TestRecord,
} from '../../test/record-batch.fixtures';
import {
  MAX_RECORD_HEADERS,
  PACK_HEADERS_ABOVE,
  PACKED_HEADERS_HEADER,
  TOO_MANY_HEADERS_HEADER,
} from './header-decoding';
import { MAX_BATCH_BYTES } from './kafka-codecs';
import { guardRecords } from './record-batch.guard';
import { UNDECODABLE_BATCH_HEADER } from './undecodable-batch';

const CODECS = [0, 1, 2, 3, 4];
const NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

const plain = (records: DecodedRecord[]) =>
  records.map((r) => ({
    offset: r.offset,
    key: r.key?.toString() ?? null,
    value: r.value?.toString() ?? null,
    headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)])),
  }));

/** The marker records an undecodable batch at `base` spanning `count` offsets becomes. */
const markers = (base: number, count: number, detail: string) =>
  Array.from({ length: count }, (_, i) => ({
    offset: String(base + i),
    key: null,
    value: null,
    headers: { [UNDECODABLE_BATCH_HEADER]: detail },
  }));

const expected = (base: number, records: readonly TestRecord[]) =>
  records.map((r, i) => ({
    offset: String(base + i),
    key: r.key,
    value: r.value,
    headers: r.headers ?? {},
  }));

const three: TestRecord[] = [
  { key: 'a', value: '{"n":1}', headers: { h: 'x' } },
  { key: 'b', value: 'not json {' },
  { key: null, value: '{"n":3}' },
];

describe("the inbox's record batch guard, as stock kafkajs then reads the batches", () => {
  it.each(CODECS)(
    'Given a valid batch of codec %i between two others, then every record reads as written, the bad-JSON one too',
    async (codec) => {
      const records = await decodeFetched([
        recordBatch(0n, 0, [three[0]!]),
        recordBatch(1n, codec, three),
        recordBatch(4n, codec, [three[2]!]),
      ]);
      expect(plain(records)).toEqual([
        ...expected(0, [three[0]!]),
        ...expected(1, three),
        ...expected(4, [three[2]!]),
      ]);
    },
  );

  const middle = async (bad: Buffer) =>
    plain(await decodeFetched([recordBatch(0n, 0, [three[0]!]), bad, recordBatch(4n, 1, three)]));
  const around = (detail: string) => [
    ...expected(0, [three[0]!]),
    ...markers(1, 3, detail),
    ...expected(4, three),
  ];

  it.each(CODECS)(
    'Given a batch of codec %i with a flipped byte, then its three offsets become markers naming the CRC, the batch before reads normally and the rest waits for the next fetch',
    async (codec) => {
      const bad = recordBatch(1n, codec, three);
      bad[bad.length - 2]! ^= 0x40;
      expect(await middle(bad)).toEqual(around('crc mismatch').slice(0, 4));
    },
  );

  it.each([5, 6, 7])('Given codec id %i, then the batch is rejected naming it', async (codec) => {
    const bad = recordBatch(1n, 0, three);
    bad.writeInt16BE(codec, 21);
    expect(await middle(reseal(bad))).toEqual(around(`unknown codec ${codec}`));
  });

  it.each([1, 2, 3, 4])(
    'Given codec %i data cut short (CRC recomputed), then the batch is rejected naming the codec',
    async (codec) => {
      const payload = COMPRESS[codec]!(recordBytes(three));
      const bad = batch(1n, {
        codec,
        count: 3,
        lastOffsetDelta: 2,
        payload: payload.subarray(0, payload.length - 9),
      });
      const [detail] = (await middle(bad))
        .slice(1, 4)
        .map((r) => (r.headers as Record<string, string>)[UNDECODABLE_BATCH_HEADER]);
      expect(await middle(bad)).toEqual(around(detail!));
      expect(detail).toMatch(
        new RegExp(`^(${NAMES[codec]} (truncated|corrupt)|record.*|offset.*)$`),
      );
    },
  );

  const disagreements: [string, { count?: number; lastOffsetDelta?: number; deltas?: number[] }][] =
    [
      ['record count mismatch', { count: 4 }],
      ['record count mismatch', { count: 2 }],
      ['record count mismatch', { lastOffsetDelta: 1 }],
      ['offset delta mismatch', { deltas: [0, 2, 1] }],
    ];
  it.each(disagreements)(
    'Given a header or offset deltas that disagree with the records, then %s',
    async (detail, o) => {
      const bad = batch(1n, {
        codec: 0,
        count: o.count ?? 3,
        lastOffsetDelta: o.lastOffsetDelta ?? 2,
        payload: recordBytes(three, o.deltas),
      });
      const span = (o.lastOffsetDelta ?? 2) + 1;
      expect(await middle(bad)).toEqual([
        ...expected(0, [three[0]!]),
        ...markers(1, span, detail),
        ...expected(4, three),
      ]);
    },
  );

  const headers = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`h${i}`, 'v']));

  it.each([0, 1])(
    'Given a record past the header cap in a batch of codec %i, then kafkajs reads it with only the count marker, its key and value kept, and the records around it untouched',
    async (codec) => {
      const records = [three[0]!, { key: 'k', value: 'v', headers: headers(50_000) }, three[2]!];
      expect(plain(await decodeFetched([recordBatch(0n, codec, records)]))).toEqual([
        ...expected(0, [three[0]!]),
        { offset: '1', key: 'k', value: 'v', headers: { [TOO_MANY_HEADERS_HEADER]: '50000' } },
        ...expected(2, [three[2]!]),
      ]);
    },
  );

  it('Given a record with exactly the cap of headers, then the inbox reads every one of them', async () => {
    const capped = { key: 'k', value: 'v', headers: headers(MAX_RECORD_HEADERS) };
    const [record] = await decodeFetched([recordBatch(0n, 0, [capped])]);
    expect(plain([record!])).toEqual(expected(0, [capped]));
  });

  it('Given valid uncompressed batches of records with few headers, then their bytes are handed on as they came', async () => {
    const capped = { key: 'k', value: 'v', headers: headers(PACK_HEADERS_ABOVE) };
    const bytes = Buffer.concat([recordBatch(0n, 0, [capped]), recordBatch(1n, 0, three)]);
    expect(await guardRecords(bytes)).toBe(bytes);
    const tail = bytes.subarray(0, bytes.length - 5); // the second batch cut by the fetch size
    expect(await guardRecords(tail)).toBe(tail);
  });

  it('Given any header list within the cap, then the inbox reads exactly the headers stock kafkajs reads, packed or not', async () => {
    const names = fc.oneof(
      fc.constantFrom(
        '__proto__',
        'constructor',
        'toString',
        'event_id',
        '',
        PACKED_HEADERS_HEADER,
      ),
      fc.string({ unit: 'binary', maxLength: 8 }),
    );
    const lists = fc.array(fc.tuple(names, fc.string({ maxLength: 6 })), { maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(lists, async (list) => {
        const bytes = recordBatch(0n, 0, [{ key: 'k', value: 'v', headers: {} }]);
        const raw = withHeaders(bytes, list);
        const [stock] = await decodeStock(raw);
        const [inbox] = await decodeFetched([raw]);
        expect(byName(inbox!.headers)).toStrictEqual(byName(stock!.headers));
      }),
      { seed: 20_261_207, numRuns: 300 },
    );
  });

  it('Given a compacted batch (gaps in offset deltas), then its records keep their offsets', async () => {
    const compacted = batch(10n, {
      codec: 1,
      count: 2,
      lastOffsetDelta: 5,
      payload: gzipSync(recordBytes([three[0]!, three[2]!], [1, 4])),
    });
    expect(plain(await decodeFetched([compacted])).map((r) => r.offset)).toEqual(['11', '14']);
  });

  const bombs: [string, number, () => Buffer][] = [
    ['gzip', 1, () => gzipSync(Buffer.alloc(MAX_BATCH_BYTES + 1))],
    ['zstd', 4, () => zstdFrame(Array.from({ length: 257 }, () => ({ byte: 0, times: 131_072 })))],
    ['lz4', 3, () => COMPRESS[3]!(Buffer.alloc(MAX_BATCH_BYTES + 1))],
    ['snappy', 2, () => COMPRESS[2]!(Buffer.alloc(MAX_BATCH_BYTES + 1))],
  ];
  it.each(bombs)(
    'Given a %s batch that expands past the cap, then it is rejected as exceeding it',
    async (name, codec, payload) => {
      const bomb = batch(1n, { codec, count: 3, lastOffsetDelta: 2, payload: payload() });
      expect(await middle(bomb)).toEqual(around(`${name} exceeds ${MAX_BATCH_BYTES} bytes`));
    },
  );

  it('Given any batch, mutated or not, then it reads as written or becomes markers for exactly its offsets, and the batches around it are untouched', async () => {
    const record = fc.record({
      key: fc.option(fc.string({ maxLength: 8 })),
      value: fc.option(fc.string({ maxLength: 40 })),
    });
    const mutation = fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }),
      fc.record({ kind: fc.constant('flip-resealed' as const), at: fc.nat(), bit: fc.nat(7) }),
      fc.record({
        kind: fc.constant('truncate-resealed' as const),
        cut: fc.integer({ min: 1, max: 64 }),
      }),
      fc.record({
        kind: fc.constant('field' as const),
        at: fc.constantFrom(21, 23, 57),
        value: fc.integer({ min: -3, max: 70_000 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CODECS),
        fc.array(record, { minLength: 1, maxLength: 6 }),
        mutation,
        async (codec, records, m) => {
          const good = recordBatch(1n, codec, records);
          const bad = Buffer.from(good);
          let resealed = false;
          if (m.kind === 'flip' || m.kind === 'flip-resealed') {
            const at = 12 + (m.at % (bad.length - 12));
            bad[at]! ^= 1 << m.bit;
            resealed = m.kind === 'flip-resealed' && at >= 21;
          } else if (m.kind === 'truncate-resealed') {
            resealed = bad.length - m.cut > 61;
          } else if (m.kind === 'field') {
            if (m.at === 21) bad.writeInt16BE(m.value & 0x7, 21);
            else bad.writeInt32BE(m.value, m.at);
            resealed = true;
          }
          const mutated =
            m.kind === 'truncate-resealed' && resealed
              ? reseal(Buffer.from(bad.subarray(0, bad.length - m.cut)))
              : resealed
                ? reseal(bad)
                : bad;
          const got = plain(
            await decodeFetched([
              recordBatch(0n, 0, [three[0]!]),
              mutated,
              recordBatch(99_999n, 0, [three[2]!]),
            ]),
          );
          expect(got[0]).toEqual(expected(0, [three[0]!])[0]);
          const rest = got.slice(1);
          const tail = expected(99_999, [three[2]!])[0]!;
          const marked = rest.filter((r) => UNDECODABLE_BATCH_HEADER in r.headers);
          const detail = marked[0]?.headers[UNDECODABLE_BATCH_HEADER];
          const framed = mutated.readInt32BE(8) === mutated.length - 12;
          if (detail !== undefined) {
            const claimed = detail === 'batch length invalid' ? 0 : mutated.readInt32BE(23);
            const span = Math.min(Math.max(claimed, 0) + 1, 100_000);
            const base = mutated.readBigInt64BE(0);
            expect(marked.map((r) => r.offset)).toEqual(
              Array.from({ length: span }, (_, i) => String(base + BigInt(i))),
            );
            // After a garbled header nothing more of the fetch is read; else the next batch is.
            const garbled = /^(crc mismatch|batch length invalid|magic)/.test(detail);
            expect(rest).toEqual(garbled || !framed ? marked : [...marked, tail]);
          } else if (m.kind === 'none') expect(rest).toEqual([...expected(1, records), tail]);
          else if (framed) expect(rest[rest.length - 1]).toEqual(tail);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** Headers by name, inherited values (`Object` for `constructor`) by their function's name. */
const byName = (headers: Record<string, unknown>) =>
  Object.entries(headers).map(([k, v]) => [
    k,
    (Array.isArray(v) ? (v as unknown[]) : [v]).map((x) =>
      typeof x === 'function' ? `fn:${x.name}` : String(x),
    ),
    Array.isArray(v),
  ]);

/** `batch` (one record, no headers) with `list` as its record's headers, resealed. */
function withHeaders(batch: Buffer, list: readonly (readonly [string, string])[]): Buffer {
  const field = (b: Buffer) => Buffer.concat([zigzag(b.length), b]);
  const headers = Buffer.concat([
    zigzag(list.length),
    ...list.map(([k, v]) => Buffer.concat([field(Buffer.from(k)), field(Buffer.from(v))])),
  ]);
  const record = batch.subarray(61);
  const sizeBytes = record[0]! < 0x80 ? 1 : 2;
  const body = Buffer.concat([record.subarray(sizeBytes, record.length - 1), headers]);
  return reseal(Buffer.concat([batch.subarray(0, 61), zigzag(body.length), body]));
}

function zigzag(value: number): Buffer {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  const bytes: number[] = [];
  for (; v >= 0x80; v = Math.floor(v / 0x80)) bytes.push(v % 0x80 | 0x80);
  return Buffer.from([...bytes, v]);
}
