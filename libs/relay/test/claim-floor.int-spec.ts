import type { Pool, PoolClient } from 'pg';
import { uuidv7 } from '@nest-outbox/core';
import { consumeUntil, uniqueTopic, waitFor, type TestSchema } from '@test/support';
import { BOTTOM_RESCAN_MS } from '../src/claim/claim-floor';
import type { ClaimSettings } from '../src/claim/claimed-batch';
import { RelayClaimer } from '../src/claim/relay.claimer';
import { RelayOperatorService } from '../src/operator/relay-operator.service';
import { checkDelivery, useRelayFixture } from './relay-test.fixture';

const settings: ClaimSettings = {
  batchSize: 50,
  runLimit: 5,
  leaseMs: 30_000,
  crashLoopThreshold: 3,
};

/** Inserts one event of `aggregateId` through `db` (a pool or an open transaction's client). */
async function insert(
  db: Pool | PoolClient,
  schema: string,
  aggregateId: string,
  version: number,
  id?: number,
): Promise<string> {
  const eventId = uuidv7();
  await db.query(
    `INSERT INTO "${schema}".outbox (${id === undefined ? '' : 'id, '}event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload)
     ${id === undefined ? '' : 'OVERRIDING SYSTEM VALUE'}
     VALUES (${id === undefined ? '' : `${id}, `}$1, 'floor.test', 1, 'thing', $2, $3, now(), '{}')`,
    [eventId, aggregateId, version],
  );
  return eventId;
}

/** `count` events of fresh aggregates `<prefix>0..`, committed. */
async function fresh(schema: TestSchema, prefix: string, count: number): Promise<void> {
  await schema.pool.query(
    `INSERT INTO "${schema.name}".outbox (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload)
     SELECT gen_random_uuid(), 'floor.test', 1, 'thing', $1::text || g, 1, now(), '{}' FROM generate_series(1, $2::int) g`,
    [prefix, count],
  );
}

/** The claim statements a claimer sends, recorded (the claimer takes a connection per claim). */
function recordingPool(pool: Pool, texts: string[]): Pool {
  const connect = async () => {
    const client = await pool.connect();
    return {
      query: (text: string) => (texts.push(text), client.query(text)),
      release: (error?: Error) => client.release(error),
    };
  };
  return { connect, query: pool.query.bind(pool) } as unknown as Pool;
}

/** Where the window of a claim transaction started (its bound), or none (the oldest end). */
const windowStart = (text: string) => /o\.id >= \(SELECT CASE .* THEN (\d+)\s/.exec(text)?.[1];

describe('Claim windows from a bound the relay keeps (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('claim-floor');
  const fixture = useRelayFixture('relay_claim_floor', { topics: [topic] });
  let schema: TestSchema;
  let claimer: RelayClaimer;
  let texts: string[];

  const publish = async (ids: readonly string[]) =>
    schema.pool.query(
      `UPDATE "${schema.name}".outbox SET published_at = now() WHERE id = ANY($1::bigint[])`,
      [ids],
    );
  /** Claims and marks at once, as a relay with an instant broker would; returns the event ids. */
  const claimAndPublish = async (): Promise<string[]> => {
    const batch = await claimer.claim(settings);
    await publish(batch.rows.map((r) => r.id));
    return batch.rows.map((r) => r.eventId);
  };

  beforeEach(async () => {
    schema = (await fixture.newScene('relay_claim_floor_case')).schema;
    texts = [];
    claimer = new RelayClaimer(recordingPool(schema.pool, texts), {
      schema: schema.name,
      table: 'outbox',
      relayId: 'floor',
      synchronousCommit: true,
    });
    // One fixed clock: no window from the oldest end falls due unless a test moves it.
    jest.spyOn(Date, 'now').mockReturnValue(1_000_000_000_000);
  });

  afterEach(() => jest.restoreAllMocks());

  /** Claims rows of fresh aggregates until a claim's window starts from a bound. */
  const untilBounded = () =>
    waitFor(
      'a window from a bound',
      async () => {
        await fresh(schema, `b${texts.length}-`, 20);
        await claimAndPublish();
        return windowStart(texts[texts.length - 1]!);
      },
      { timeoutMs: 60_000 },
    );

  it('Given a transaction that inserted a row and stays open while later rows commit and are claimed and published, when it commits, then the next claim takes that row (no window from the oldest end needed)', async () => {
    await untilBounded();
    const late = await schema.pool.connect();
    try {
      await late.query('BEGIN');
      const lateEvent = await insert(late, schema.name, 'late', 1);
      for (let round = 0; round < 6; round++) {
        await fresh(schema, `r${round}-`, 60);
        expect(await claimAndPublish()).not.toContain(lateEvent);
        expect(windowStart(texts[texts.length - 1]!)).toBeDefined();
      }
      await late.query('COMMIT');

      expect(await claimAndPublish()).toContain(lateEvent);
    } finally {
      late.release();
    }
  });

  it('Given rows claimed and published, when later claims run, then their window starts past the published rows; a row below the bound waits for the window from the oldest end, which comes after the rescan interval', async () => {
    await fresh(schema, 'a', 50);
    await waitFor('a window that starts past the first 50 rows', async () => {
      const start = await untilBounded();
      return Number(start) > 50;
    });
    const below = await insert(schema.pool, schema.name, 'below', 1, 0);

    expect(await claimAndPublish()).not.toContain(below);
    expect(Number(windowStart(texts[texts.length - 1]!))).toBeGreaterThan(0);

    jest.spyOn(Date, 'now').mockReturnValue(1_000_000_000_000 + BOTTOM_RESCAN_MS);
    expect(await claimAndPublish()).toContain(below);
    expect(windowStart(texts[texts.length - 1]!)).toBeUndefined();
  });

  it('Given a window from a bound past the published rows, when an operator republishes one of them, then the next claim reads from the oldest end and takes it', async () => {
    await fresh(schema, 'a', 50);
    await waitFor('a window that starts past the first 50 rows', async () => {
      const start = await untilBounded();
      return Number(start) > 50;
    });
    const operator = new RelayOperatorService(schema.pool, {
      schema: schema.name,
      table: 'outbox',
    });
    await operator.republish(
      { aggregateType: 'thing', aggregateId: 'a1' },
      { actor: 'test', reason: 'replay' },
    );

    const batch = await claimer.claim(settings);
    expect(batch.rows.map((r) => r.aggregateId)).toContain('a1');
  });

  it('Given an event that commits late with a lower id while a relay publishes later events, when it commits and its aggregate records more, then Kafka has them all, that aggregate in version order', async () => {
    jest.restoreAllMocks();
    const { scene } = fixture;
    const { producer } = scene;
    await scene.start({ routing: { defaultTopic: topic }, tuning: { batchSize: 100 } });
    const late = await scene.schema.pool.connect();
    const lateEvents: string[] = [];
    try {
      await late.query('BEGIN');
      // As a writer does: one transaction per key at a time (the key's advisory lock).
      await late.query(`SELECT pg_advisory_xact_lock(hashtext('thing:late'))`);
      lateEvents.push(await insert(late, scene.schema.name, 'late', 1));
      for (let round = 0; round < 5; round++) {
        await producer.writeMany(200, 20, 50, `k${round}-`);
        await waitFor('the later events published', async () => (await scene.pending()) === 0, {
          timeoutMs: 60_000,
        });
      }
      await late.query('COMMIT');
    } finally {
      late.release();
    }
    for (const version of [2, 3])
      lateEvents.push(await insert(scene.schema.pool, scene.schema.name, 'late', version));

    await waitFor('every event published', async () => (await scene.pending()) === 0, {
      timeoutMs: 60_000,
    });
    const records = await consumeUntil([topic], (r) => r.length >= producer.written.length + 3, {
      timeoutMs: 30_000,
    });
    const report = checkDelivery(records, producer.written);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    expect(records.filter((r) => r.key === 'late').map((r) => r.headers.event_id)).toEqual(
      lateEvents,
    );
  });
});
