import fc from 'fast-check';

/**
 * One generated outbox row: every column the relay reads, drawn from its column type's whole
 * domain (what PostgreSQL stores), not only from what OutboxModule writes.
 */
export interface FuzzRow {
  readonly eventId: string;
  readonly eventType: string;
  /** integer: the whole int4 range. */
  readonly schemaVersion: number;
  readonly aggregateType: string;
  readonly aggregateId: string;
  /** bigint: the whole int8 range, as text. */
  readonly aggregateVersion: string;
  /** timestamptz literal: any era, both infinities, the extremes. */
  readonly occurredAt: string;
  /** json text: any JSON document. */
  readonly payload: string;
  /** jsonb: any JSON value (objects of strings most often). */
  readonly headers: unknown;
  /** text or NULL: the fuzz topic, NULL (routed), or a name Kafka cannot take. */
  readonly topic: string | null;
  readonly createdAt: string;
}

/** A legal Kafka topic name. */
export const LEGAL_TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text as PostgreSQL's `text` and `jsonb` hold it in a UTF-8 database: any code point but NUL
 * (well-formed: a lone surrogate cannot be stored).
 */
const text = (maxLength = 40) =>
  fc
    .string({ unit: 'binary', maxLength })
    .map((s) => s.replace(/\0/g, '').replace(LONE_SURROGATE, '\uFFFD'));

/** Years 4714 BC to 294276 AD, as PostgreSQL writes them (`BC` suffix, no year 0). */
const instant = fc
  .record({
    bc: fc.boolean(),
    year: fc.oneof(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 294_275 })),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    micro: fc.integer({ min: 0, max: 999_999 }),
  })
  .map(({ bc, year, month, day, hour, minute, second, micro }) => {
    const y = bc ? Math.min(year, 4713) : year;
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    return `${pad(y, 4)}-${pad(month)}-${pad(day)} ${pad(hour)}:${pad(minute)}:${pad(second)}.${pad(micro, 6)}+00${bc ? ' BC' : ''}`;
  });

/** Any timestamptz: mostly ordinary, often another era, sometimes infinite or extreme. */
export const timestamptz = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
      .map((d) => d.toISOString()),
  },
  { weight: 6, arbitrary: instant },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'infinity',
      '-infinity',
      '4714-11-24 00:00:00+00 BC',
      '0001-12-31 23:59:59.999999+00 BC',
      '0001-01-01 00:00:00+00',
      '275760-09-13 00:00:00+00',
      '275760-09-13 00:00:00.001+00',
      '294276-12-31 23:59:59.999999+00',
    ),
  },
);

/** Any JSON value, its strings as jsonb holds them. */
const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    text(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text(12), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** The headers column: objects of strings most often, any JSON value otherwise. */
const headers = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(text(20), text(60), { maxKeys: 6 }) },
  { weight: 1, arbitrary: fc.constant({}) },
  { weight: 3, arbitrary: jsonValue },
);

/** A topic column: NULL (routed), the fuzz topic, or a name Kafka refuses. */
const topic = (fuzzTopic: string) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: fc.constant(fuzzTopic) },
    { weight: 1, arbitrary: text(300).filter((t) => !LEGAL_TOPIC.test(t)) },
  );

/** A row of one of `aggregates` fuzz aggregates (so runs form), or of an aggregate id of any text. */
export function fuzzRow(fuzzTopic: string, aggregates = 200): fc.Arbitrary<FuzzRow> {
  return fc.record({
    eventId: fc.uuid(),
    eventType: text(),
    schemaVersion: fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }),
    aggregateType: fc.oneof(fc.constant('fuzz'), text(20)),
    aggregateId: fc.oneof(
      { weight: 3, arbitrary: fc.nat(aggregates - 1).map((n) => `agg-${n}`) },
      { weight: 1, arbitrary: text(60) },
    ),
    aggregateVersion: fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n).map(String),
    occurredAt: timestamptz,
    payload: fc.json({ maxDepth: 3 }),
    headers,
    topic: topic(fuzzTopic),
    createdAt: fc.oneof(
      { weight: 12, arbitrary: fc.constant('now') },
      { weight: 1, arbitrary: timestamptz },
    ),
  });
}
