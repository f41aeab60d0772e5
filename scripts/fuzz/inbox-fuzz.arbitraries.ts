import fc from 'fast-check';
import { toKafkaHeaders, uuidv7 } from '@nest-outbox/core';
import type { IHeaders } from 'kafkajs';

/** One generated Kafka record: a canary (valid, must be applied) or a hostile one. */
export interface FuzzRecord {
  readonly kind: 'canary' | 'hostile';
  /** The hostile class drawn (for the findings), or `canary`. */
  readonly shape: string;
  readonly eventId?: string;
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers: IHeaders;
}

const CONTRACT_TYPE = 'order.confirmed';

/** A valid record of the event contract, as the relay publishes it. */
export function canaryRecord(eventId = uuidv7()): FuzzRecord {
  const aggregateId = `order-${eventId.slice(-8)}`;
  return {
    kind: 'canary',
    shape: 'canary',
    eventId,
    key: aggregateId,
    value: JSON.stringify({ orderId: aggregateId, canary: true }),
    headers: toKafkaHeaders({
      eventId,
      eventType: CONTRACT_TYPE,
      schemaVersion: 1,
      aggregateType: 'order',
      aggregateId,
      aggregateVersion: 1,
      occurredAt: new Date(),
      headers: {},
    }),
  };
}

/** Strings hostile to PostgreSQL and to logs, often carrying the planted `marker`. */
function hostileText(marker: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom(
      '\u0000',
      '\ud800',
      '\udfff',
      '\n',
      '\r\n',
      '\u001b[31m',
      '\u2028',
      '"',
      "'",
      '\\',
    ),
    fc
      .tuple(
        fc.string({ unit: 'binary', maxLength: 10 }),
        fc.constantFrom('\u0000', '\ud83d', '\n', ''),
      )
      .map(([text, evil]) => `${text}${marker}${evil}${text}`),
  );
}

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));

/** JSON nested `depth` levels (arrays or objects), built without recursion. */
function nested(depth: number, leaf: string, objects: boolean): string {
  return objects
    ? `${'{"a":'.repeat(depth)}${JSON.stringify(leaf)}${'}'.repeat(depth)}`
    : `${'['.repeat(depth)}${JSON.stringify(leaf)}${']'.repeat(depth)}`;
}

function hostileValue(marker: string): fc.Arbitrary<Buffer | string | null> {
  return fc.oneof(
    { weight: 3, arbitrary: bytes(300) },
    {
      weight: 3,
      arbitrary: hostileText(marker).map((t) => JSON.stringify({ note: t, orderId: t })),
    },
    { weight: 1, arbitrary: hostileText(marker) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 120_000 }), hostileText(marker), fc.boolean())
        .map(([depth, leaf, objects]) => nested(depth, leaf, objects)),
    },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 6 }) },
  );
}

/** Contract headers of a valid record with some fields replaced by hostile text or bytes. */
function corruptedContract(marker: string): fc.Arbitrary<IHeaders> {
  const fields = [
    'event_id',
    'event_type',
    'schema_version',
    'aggregate_type',
    'aggregate_id',
    'aggregate_version',
    'occurred_at',
  ];
  return fc
    .tuple(
      fc.subarray(fields, { minLength: 1 }),
      fc.array(fc.oneof(hostileText(marker), bytes(20)), { minLength: 7, maxLength: 7 }),
      fc.boolean(),
    )
    .map(([broken, values, withEvil]) => {
      const headers: IHeaders = { ...canaryRecord().headers };
      broken.forEach((name, i) => {
        // Half the time keep a valid-looking prefix so later checks are reached too.
        const value = values[i]!;
        headers[name] =
          withEvil && typeof value === 'string' ? `${String(headers[name])}${value}` : value;
      });
      return headers;
    });
}

/** Arbitrary header names and values, any count (sometimes far past the decoder's cap). */
function arbitraryHeaders(marker: string): fc.Arbitrary<IHeaders> {
  const entries = (max: number) =>
    fc.array(fc.tuple(hostileText(marker), fc.oneof(hostileText(marker), bytes(30))), {
      maxLength: max,
    });
  return fc
    .oneof(
      { weight: 8, arbitrary: entries(12) },
      { weight: 1, arbitrary: fc.integer({ min: 900, max: 12_000 }).map((n) => bombEntries(n)) },
    )
    .map((list) => {
      const headers: IHeaders = {};
      for (const [name, value] of list) headers[name] = value;
      return headers;
    });
}

function bombEntries(count: number): [string, string][] {
  return Array.from({ length: count }, (_, i) => [`h${i}`, 'v']);
}

/** A hostile record: contract headers corrupted or absent, arbitrary bytes everywhere. */
function hostileRecord(marker: string): fc.Arbitrary<FuzzRecord> {
  return fc
    .tuple(
      fc.oneof(
        corruptedContract(marker).map((h) => ['corrupted-contract', h] as const),
        arbitraryHeaders(marker).map((h) => ['arbitrary-headers', h] as const),
        fc
          .tuple(corruptedContract(marker), arbitraryHeaders(marker))
          .map(([a, b]) => ['contract-plus-junk', { ...b, ...a }] as const),
        fc.constant(['valid-contract', canaryRecord().headers] as const),
      ),
      fc.option(fc.oneof(bytes(50), hostileText(marker)), { nil: null }),
      hostileValue(marker),
    )
    .map(([[shape, headers], key, value]) => ({
      kind: 'hostile' as const,
      shape,
      key,
      value,
      headers,
    }));
}

/**
 * The fuzz stream: canaries (about one in `canaryEvery`) between hostile records. Canaries
 * get a fresh event id each; the stream is reproducible from fast-check's seed except for
 * the ids (uuid v7, time-based), which do not change what is tested.
 */
export function fuzzRecords(marker: string, canaryEvery = 8): fc.Arbitrary<FuzzRecord> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(null).map(() => canaryRecord()) },
    { weight: canaryEvery - 1, arbitrary: hostileRecord(marker) },
  );
}
