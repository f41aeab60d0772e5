import fc from 'fast-check';
import { waitFor, type TestSchema } from '@test/support';
import { RelayClaimer } from '../src/claim/relay.claimer';
import type { ClaimedBatch, ClaimSettings } from '../src/claim/claimed-batch';
import { RelayStore, SYNC_MARK_INTERVAL_MS } from '../src/store/relay.store';
import { useRelayFixture, type RelayScene } from './relay-test.fixture';

/** `perKey` events for each of `keys` aggregates, interleaved in id order (k0, k1, ..., k0, ...). */
async function fillInterleaved(schema: TestSchema, keys: number, perKey: number, prefix = 'k') {
  await schema.pool.query(
    `INSERT INTO "${schema.name}".outbox (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload)
     SELECT gen_random_uuid(), 'claim.test', 1, 'thing', $3::text || (g % $1::int), g / $1::int + 1, now(), '{}'
       FROM generate_series(0, $1::int * $2::int - 1) g`,
    [keys, perKey, prefix],
  );
  await schema.pool.query(`ANALYZE "${schema.name}".outbox`);
}

const settings = (batchSize: number, runLimit: number): ClaimSettings => ({
  batchSize,
  runLimit,
  leaseMs: 30_000,
  crashLoopThreshold: 3,
});

/** Per aggregate, the claimed aggregate versions in id order. */
function runs(batch: ClaimedBatch): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const row of batch.rows) {
    const list = map.get(row.aggregateId) ?? [];
    list.push(Number(row.aggregateVersion));
    map.set(row.aggregateId, list);
  }
  return map;
}

/** One relay's claimer and store on the test schema. */
interface TestRelay {
  readonly claimer: RelayClaimer;
  readonly store: RelayStore;
}

describe('Claiming runs of whole aggregates (real PostgreSQL)', () => {
  const fixture = useRelayFixture('relay_claim');
  let scene: RelayScene;
  let schema: TestSchema;
  let a: TestRelay;
  let b: TestRelay;

  const relay = (relayId: string, synchronousCommit = true): TestRelay => {
    const options = {
      ...{ schema: schema.name, table: 'outbox', relayId, synchronousCommit },
      statementTimeoutMs: 5000,
    };
    return {
      claimer: new RelayClaimer(schema.pool, options),
      store: new RelayStore(schema.pool, options),
    };
  };

  // A schema per test: claims depend on everything pending in the outbox.
  beforeEach(async () => {
    scene = await fixture.newScene('relay_claim_case');
    schema = scene.schema;
    a = relay('relay-a');
    b = relay('relay-b');
  });

  afterEach(() => scene.close());

  it('Given 1,000 interleaved aggregates, when two relays claim, then they lease disjoint aggregates, each a contiguous run from its head, and both get a full batch', async () => {
    await fillInterleaved(schema, 1000, 5);

    const first = await a.claimer.claim(settings(100, 5));
    const second = await b.claimer.claim(settings(100, 5));

    expect(first.rows).toHaveLength(100);
    expect(second.rows).toHaveLength(100);
    const runsA = runs(first);
    const runsB = runs(second);
    // Whole runs of few aggregates, not one head each of many.
    expect(runsA.size).toBe(20);
    expect(runsB.size).toBe(20);
    for (const key of runsA.keys()) expect(runsB.has(key)).toBe(false);
    for (const versions of [...runsA.values(), ...runsB.values()])
      expect(versions).toEqual([1, 2, 3, 4, 5]);
  });

  it('Given an aggregate whose third pending event waits for its backoff, when a relay claims, then its run stops before that event and no later event of it is taken', async () => {
    await fillInterleaved(schema, 1, 6);
    await schema.pool.query(
      `UPDATE "${schema.name}".outbox SET next_attempt_at = now() + interval '1 hour' WHERE aggregate_version = 3`,
    );

    const batch = await a.claimer.claim(settings(100, 100));

    expect([...runs(batch).values()]).toEqual([[1, 2]]);
  });

  it('Given a run leased by another relay, when a second relay claims, then it takes nothing of that aggregate; once the lease expires it takes the rest from the head', async () => {
    await fillInterleaved(schema, 1, 10);

    const first = await a.claimer.claim({ ...settings(4, 4), leaseMs: 1500 });
    const blocked = await b.claimer.claim(settings(100, 100));
    expect([...runs(first).values()]).toEqual([[1, 2, 3, 4]]);
    expect(blocked.rows).toHaveLength(0);

    await schema.pool.query(
      `UPDATE "${schema.name}".outbox SET lease_expires_at = now() - interval '1 second' WHERE lease_owner LIKE 'relay-a:%'`,
    );
    const after = await b.claimer.claim(settings(100, 100));
    expect([...runs(after).values()]).toEqual([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]);
  });

  it('Given 10,000 pending events on one key whose head is leased, when another relay claims, then it gets the aggregates behind that backlog and none of the hot key', async () => {
    await fillInterleaved(schema, 1, 10_000, 'hot');
    await fillInterleaved(schema, 50, 2, 'cold');
    const hot = await a.claimer.claim(settings(100, 100));
    expect([...runs(hot).keys()]).toEqual(['hot0']);

    const other = await b.claimer.claim(settings(1000, 100));

    expect(other.rows).toHaveLength(100);
    const taken = runs(other);
    expect(taken.has('hot0')).toBe(false);
    expect(taken.size).toBe(50);
    for (const versions of taken.values()) expect(versions).toEqual([1, 2]);
  });

  it('Given a hot key whose head is leased, when its backlog grows twentyfold, then a claim of the others costs about the same (bounded, not linear in the backlog)', async () => {
    /** Median time of five claims by relay b (each handed back), hot head leased by relay a. */
    const medianClaimMs = async (backlog: number): Promise<number> => {
      await schema.pool.query(`TRUNCATE "${schema.name}".outbox`);
      await fillInterleaved(schema, 1, backlog, 'hot');
      await fillInterleaved(schema, 50, 2, 'cold');
      await a.claimer.claim(settings(100, 100));
      const timings: number[] = [];
      for (let i = 0; i < 5; i++) {
        const startedAt = process.hrtime.bigint();
        const batch = await b.claimer.claim(settings(1000, 100));
        timings.push(Number(process.hrtime.bigint() - startedAt) / 1e6);
        expect(batch.rows).toHaveLength(100);
        await b.store.release(
          batch.leaseToken,
          batch.rows.map((r) => ({ id: r.id, started: true })),
        );
      }
      return timings.sort((x, y) => x - y)[2]!;
    };

    const small = await medianClaimMs(2_000);
    const large = await medianClaimMs(40_000);

    // Linear would be ~20x (a probe per backlog row cost ~1 s per claim at 100,000 here).
    expect(large / small).toBeLessThan(5);
  });

  it('Given a parked head on a hot key, when fresh aggregates arrive after its backlog, then claims take them and never the hot key', async () => {
    await fillInterleaved(schema, 1, 3_000, 'hot');
    await schema.pool.query(
      `UPDATE "${schema.name}".outbox SET parked_at = now(), parked_reason = 'test' WHERE aggregate_id = 'hot0' AND aggregate_version = 1`,
    );
    await fillInterleaved(schema, 5, 3, 'fresh');

    const batch = await a.claimer.claim(settings(1000, 100));

    expect([...runs(batch).keys()].sort()).toEqual([
      'fresh0',
      'fresh1',
      'fresh2',
      'fresh3',
      'fresh4',
    ]);
    for (const versions of runs(batch).values()) expect(versions).toEqual([1, 2, 3]);
  });

  it('Given more aggregates behind a blocked backlog than one skip scan reads, when a relay claims again and again, then the scans take turns and every aggregate is claimed', async () => {
    await fillInterleaved(schema, 1, 50, 'hot');
    await fillInterleaved(schema, 7, 1, 'cold');
    await a.claimer.claim(settings(5, 5));
    const small = { ...settings(100, 100), windowRows: 10, scanAggregates: 3 };

    const claimed = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const batch = await b.claimer.claim(small);
      for (const key of runs(batch).keys()) claimed.add(key);
    }

    expect([...claimed].sort()).toEqual([
      'cold0',
      'cold1',
      'cold2',
      'cold3',
      'cold4',
      'cold5',
      'cold6',
    ]);
  });

  it('Given a relay id and aggregate ids holding quotes and backslashes, when a relay claims through its window and its skip scan, then its rows are leased under exactly its token and the scans take turns past those ids', async () => {
    const odd = relay(`it's a \\ relay`);
    await fillInterleaved(schema, 1, 50, `hot'\\`);
    await fillInterleaved(schema, 7, 1, `co'ld\\`);
    await a.claimer.claim(settings(5, 5));
    const small = { ...settings(100, 100), windowRows: 10, scanAggregates: 3 };

    const claimed = new Set<string>();
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const batch = await odd.claimer.claim(small);
      tokens.add(batch.leaseToken);
      for (const key of runs(batch).keys()) claimed.add(key);
    }

    expect([...claimed].sort()).toEqual(Array.from({ length: 7 }, (_, i) => `co'ld\\${i}`).sort());
    const { rows } = await schema.pool.query<{ lease_owner: string }>(
      `SELECT DISTINCT lease_owner FROM "${schema.name}".outbox WHERE aggregate_id LIKE 'co%'`,
    );
    expect(rows.map((r) => r.lease_owner).every((owner) => tokens.has(owner))).toBe(true);
    expect(rows[0]!.lease_owner.startsWith(`it's a \\ relay:`)).toBe(true);
  });

  it('Given arbitrary text as relay id, aggregate type and aggregate id (fuzzed, empty ones included), when a relay claims behind a blocked backlog (window, then skip scan), then it leases that aggregate under exactly its token', async () => {
    const T = `"${schema.name}".outbox`;
    const text = fc.string({ minLength: 1, maxLength: 40 }).filter((t) => !t.includes('\0'));
    const anyText = fc.string({ maxLength: 40 }).filter((t) => !t.includes('\0'));
    await fc.assert(
      fc.asyncProperty(text, anyText, anyText, async (relayId, aggregateType, aggregateId) => {
        await schema.pool.query(`TRUNCATE ${T}`);
        await fillInterleaved(schema, 1, 20, 'hot');
        await schema.pool.query(
          `INSERT INTO ${T} (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload)
           VALUES (gen_random_uuid(), 'claim.test', 1, $2, $1, 1, now(), '{}')`,
          [aggregateId, aggregateType],
        );
        await a.claimer.claim(settings(1, 1));
        const fuzzed = relay(relayId);
        const small = { ...settings(10, 10), windowRows: 5, scanAggregates: 1 };
        const batch = await fuzzed.claimer.claim(small);
        const again = await fuzzed.claimer.claim(small);

        const rows = [...batch.rows, ...again.rows];
        expect(rows.map((r) => r.aggregateId)).toEqual([aggregateId]);
        const { rows: owners } = await schema.pool.query<{ lease_owner: string }>(
          `SELECT lease_owner FROM ${T} WHERE aggregate_id = $1`,
          [aggregateId],
        );
        expect(owners).toEqual([{ lease_owner: `${relayId}:${batch.rows.length ? 1 : 2}` }]);
      }),
      // ('', ''): the first aggregate of all, which a scan starting after ('', '') never read.
      { numRuns: 25, seed: 20261205, examples: [['relay', '', '']] },
    );
  });

  it('Given a row of a picked run that changes before the lease reaches it, when the claim commits, then it hands back the rows it leased (claims uncounted) and returns none; the next claim takes the whole run', async () => {
    await fillInterleaved(schema, 1, 3);
    const T = `"${schema.name}".outbox`;
    const other = await schema.pool.connect();
    try {
      // Row 2 is about to back off: its update holds the row while the claim picks the run.
      await other.query('BEGIN');
      await other.query(
        `UPDATE ${T} SET next_attempt_at = now() + interval '1 hour' WHERE aggregate_version = 2`,
      );
      const claiming = a.claimer.claim(settings(10, 10));
      await waitFor('the claim waiting for row 2', async () => {
        const { rows } = await schema.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE 'BEGIN;%' AND query LIKE $1`,
          [`%${schema.name}%`],
        );
        return rows[0]!.n === 1;
      });
      await other.query('COMMIT');

      const raced = await claiming;

      expect(raced.rows).toEqual([]);
      const { rows } = await schema.pool.query<{ v: string; leased: boolean; claims: number }>(
        `SELECT aggregate_version::text AS v, lease_expires_at IS NOT NULL AS leased, claims
           FROM ${T} ORDER BY id`,
      );
      expect(rows).toEqual([
        { v: '1', leased: false, claims: 0 },
        { v: '2', leased: false, claims: 0 },
        { v: '3', leased: false, claims: 0 },
      ]);
    } finally {
      other.release();
    }
    await schema.pool.query(`UPDATE ${T} SET next_attempt_at = NULL`);
    const next = await b.claimer.claim(settings(10, 10));
    expect([...runs(next).values()]).toEqual([[1, 2, 3]]);
  });

  it('Given the default bookkeeping mode, when a relay claims and marks, then claims commit with synchronous_commit off and one mark per interval waits for the flush, and with synchronousCommit true every one waits', async () => {
    await fillInterleaved(schema, 2, 2);
    /**
     * The synchronous_commit the claim's transaction ran with, read back inside it: the claim
     * is one simple query (BEGIN, lock, lease, COMMIT), so a reading of the setting goes in
     * just before its COMMIT.
     */
    const claimMode = async ({ claimer }: TestRelay) => {
      const seen: string[] = [];
      const connect = schema.pool.connect.bind(schema.pool);
      const spy = jest.spyOn(schema.pool, 'connect').mockImplementation((async () => {
        const client = await connect();
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        const recording = async (...args: unknown[]) => {
          const [text, ...rest] = args;
          // (A pooled client keeps this wrapper: the mark, later, is passed through.)
          if (typeof text !== 'string' || !text.startsWith('BEGIN;')) return query(...args);
          expect(text).toContain('set_config');
          expect(text.endsWith('COMMIT')).toBe(true);
          const reading = `SELECT current_setting('synchronous_commit') AS m;\nCOMMIT`;
          const results = (await query(text.replace(/COMMIT$/, reading), ...rest)) as {
            rows: { m: string }[];
          }[];
          seen.push(results[3]!.rows[0]!.m);
          return results;
        };
        return Object.assign(client, { query: recording });
      }) as never);
      try {
        return { batch: await claimer.claim(settings(2, 2)), seen };
      } finally {
        spy.mockRestore();
      }
    };
    /**
     * The mark is one statement that commits on its own: run here inside a transaction of the
     * test, it shows the synchronous_commit it sets for the transaction it runs in.
     */
    const markMode = async (
      batch: ClaimedBatch,
      synchronousCommit: boolean,
      store = new RelayStore(schema.pool, {
        statementTimeoutMs: 5000,
        schema: schema.name,
        table: 'outbox',
        synchronousCommit,
      }),
    ) => {
      const client = await schema.pool.connect();
      try {
        await client.query('BEGIN');
        Object.assign(store, { pool: client });
        const notMarked = await store.mark(
          batch.leaseToken,
          batch.rows.map((r, i) => ({ id: r.id, partition: 0, offset: String(i) })),
        );
        expect(notMarked.size).toBe(0);
        const { rows } = await client.query<{ m: string }>(
          `SELECT current_setting('synchronous_commit') AS m`,
        );
        await client.query('COMMIT');
        return rows[0]!.m;
      } finally {
        client.release();
      }
    };
    const modes = async (relayId: string, synchronousCommit: boolean, store?: RelayStore) => {
      const { batch, seen } = await claimMode(relay(relayId, synchronousCommit));
      expect(batch.rows).toHaveLength(2);
      return [...seen, await markMode(batch, synchronousCommit, store)];
    };

    // Asynchronous bookkeeping: a relay's first mark, and then one per interval, waits for the
    // flush, which bounds what a PostgreSQL crash can forget to the marks of one interval.
    const clock = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      const store = new RelayStore(schema.pool, {
        statementTimeoutMs: 5000,
        schema: schema.name,
        table: 'outbox',
        synchronousCommit: false,
      });
      expect(await modes('r', false, store)).toEqual(['off', 'on']);
      await fillInterleaved(schema, 2, 2);
      clock.mockReturnValue(1_000_000 + SYNC_MARK_INTERVAL_MS - 1);
      expect(await modes('s', false, store)).toEqual(['off', 'off']);
      await fillInterleaved(schema, 2, 2);
      clock.mockReturnValue(1_000_000 + SYNC_MARK_INTERVAL_MS);
      expect(await modes('t', false, store)).toEqual(['off', 'on']);
    } finally {
      clock.mockRestore();
    }
    await fillInterleaved(schema, 2, 2);
    expect(await modes('d', true)).toEqual(['on', 'on']);
  });
});
