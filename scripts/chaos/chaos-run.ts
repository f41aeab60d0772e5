import { waitFor } from '@test/support';
import { Kafka, logLevel } from 'kafkajs';
import { uuidv7 } from '@nest-outbox/core';
import { OrderLoad, type LoadFigures } from './chaos-load';
import { planRound, runFault, type FaultKind } from './chaos-faults';
import { CHAOS_NAMES, ChaosSystem, ORDER_TOPIC_MAX_MESSAGE_BYTES } from './chaos-system';
import { checkHistory, type HistoryReport } from './history-check';
import { OffsetSampler } from './offset-sampler';
import { SeededRandom } from './seeded-random';
import { TopicReader } from './topic-reader';

/** Options of a chaos run. */
export interface ChaosOptions {
  readonly rounds: number;
  readonly seed: number;
  readonly cluster: boolean;
  readonly loadMs: number;
  readonly clients: number;
  readonly quiesceMs: number;
  readonly logDir: string;
  readonly print: (line: string) => void;
  /** Aborted: the run stops after the current round and tears everything down. */
  readonly signal?: AbortSignal;
}

/** What a run came to. */
export interface ChaosResult {
  seed: number;
  rounds: number;
  roundsDone: number;
  kafka: 'single' | 'cluster';
  faults: Partial<Record<FaultKind, number>>;
  load: LoadFigures;
  history: HistoryReport['figures'] | undefined;
  violations: string[];
  elapsedMs: number;
}

/**
 * `npm run chaos`: rounds of HTTP load on the sample system with seeded faults, each ending
 * in quiescence and a check of the whole history so far, read from outside (an independent
 * Kafka reader, SQL), against I1-I6 of the architecture guide.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const started = Date.now();
  const rng = new SeededRandom(o.seed);
  const result: ChaosResult = {
    seed: o.seed,
    rounds: o.rounds,
    roundsDone: 0,
    kafka: o.cluster ? 'cluster' : 'single',
    faults: {},
    load: { commands: 0, applied: 0, conflicts: 0, unavailable: 0, lostAnswers: 0 },
    history: undefined,
    violations: [],
    elapsedMs: 0,
  };
  o.print(`chaos: seed ${o.seed}, ${o.rounds} rounds, ${result.kafka} Kafka, logs in ${o.logDir}`);
  const system = await ChaosSystem.start({ cluster: o.cluster, logDir: o.logDir });
  const reader = new TopicReader(system.kafka.brokers, [
    CHAOS_NAMES.orderTopic,
    CHAOS_NAMES.shipmentTopic,
  ]);
  await reader.start();
  const n = CHAOS_NAMES;
  const sampler = new OffsetSampler(system.kafka.brokers, system.db, reader, {
    groupId: n.consumerGroup,
    topic: n.orderTopic,
    appliedSql: `SELECT event_id::text FROM ${n.shippingSchema}.inbox WHERE consumer = '${n.projection}' AND event_id = ANY($1::uuid[])`,
  });
  sampler.start();
  const load = new OrderLoad(system.orders.url);
  try {
    for (let round = 1; round <= o.rounds && !o.signal?.aborted; round++) {
      const roundStarted = Date.now();
      const roundRng = rng.fork();
      const outcome = await runRound(system, load, reader, sampler, roundRng, o).catch(
        (error: unknown) => ({
          line: 'failed',
          found: [`the round could not run: ${(error as Error).message.slice(0, 1500)}`],
          figures: undefined,
        }),
      );
      const found = outcome.found;
      if (outcome.figures) {
        for (const k of Object.keys(outcome.figures.load) as (keyof LoadFigures)[])
          result.load[k] += outcome.figures.load[k];
        for (const k of outcome.figures.kinds) result.faults[k] = (result.faults[k] ?? 0) + 1;
        result.history = outcome.figures.history;
      }
      result.violations.push(...found.map((f) => `round ${round}: ${f}`));
      result.roundsDone = round;
      o.print(
        `round ${round}/${o.rounds}: ${outcome.line}; violations ${found.length}, ${((Date.now() - roundStarted) / 1000).toFixed(1)} s`,
      );
      for (const f of found.slice(0, 20)) o.print(`  VIOLATION ${f}`);
    }
  } finally {
    await sampler.stop();
    await reader.close();
    await system.teardown();
  }
  result.elapsedMs = Date.now() - started;
  return result;
}

/** One round: plan, heal, poison, load with faults, heal, quiescence, history check. */
async function runRound(
  system: ChaosSystem,
  load: OrderLoad,
  reader: TopicReader,
  sampler: OffsetSampler,
  rng: SeededRandom,
  o: ChaosOptions,
): Promise<{
  line: string;
  found: string[];
  figures: { load: LoadFigures; kinds: FaultKind[]; history: HistoryReport['figures'] } | undefined;
}> {
  const plan = planRound(rng, o.loadMs);
  system.activeRelays = plan.relays;
  await system.heal();
  await system.orders.waitHealthy();
  if (plan.poison) await poisonAnOrder(system, load);
  const done: string[] = [];
  const faults = plan.faults.map(async (f) => {
    await new Promise((resolve) => setTimeout(resolve, f.atMs));
    done.push(await runFault(system, f, rng));
  });
  const figures = await load.run(rng, o.loadMs, o.clients);
  await Promise.all(faults);
  await system.heal();
  const quiet = await quiesce(system, reader, o.quiesceMs).catch(
    (e: unknown) => (e as Error).message,
  );
  const lagging = typeof quiet === 'number' ? quiet : 0;
  const history = await checkHistory(system.db, reader, load.applied);
  await sampler.sample().catch(() => undefined);
  const found = [
    ...(typeof quiet === 'number' ? [] : [`no quiescence within ${o.quiesceMs} ms: ${quiet}`]),
    ...history.violations,
    ...load.violations.splice(0),
    ...sampler.violations.splice(0),
    ...system.unexpectedExits(),
  ];
  for (const p of [system.orders, system.shipping, ...system.relays]) p.unexpectedExits.splice(0);
  const h = history.figures;
  return {
    line:
      `relays ${plan.relays}${plan.poison ? ', poison' : ''}; faults: ${done.join('; ')}; ` +
      `commands ${figures.commands} (applied ${figures.applied}, 409 ${figures.conflicts}, 503 ${figures.unavailable}, no answer ${figures.lostAnswers}); ` +
      `orders ${h.orders}, records ${h.orderRecords} (+${h.duplicates} dup total)` +
      (lagging ? `, ${lagging} partition(s) with committed offsets behind (lag)` : ''),
    found,
    figures: { load: figures, kinds: plan.faults.map((f) => f.kind), history: h },
  };
}

/**
 * Creates an order, records a "poisoned" transition for it (an event too large for the
 * order topic, committed like any other: version + 1 and its outbox row in one transaction),
 * then confirms it: the confirmation's event waits behind the parked poison (I6).
 */
async function poisonAnOrder(system: ChaosSystem, load: OrderLoad): Promise<void> {
  const id = await load.createOne();
  if (!id) return;
  const n = CHAOS_NAMES;
  const client = await system.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ version: number }>(
      `UPDATE ${n.ordersSchema}.orders SET version = version + 1 WHERE id = $1 AND status = 'pending' RETURNING version`,
      [id],
    );
    if (rows[0]) {
      await client.query(
        `INSERT INTO ${n.ordersSchema}.outbox (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload)
         VALUES ($1, 'order.poisoned', 1, 'order', $2, $3, now(), $4::json)`,
        [
          uuidv7(),
          id,
          rows[0].version,
          JSON.stringify({ orderId: id, filler: 'x'.repeat(ORDER_TOPIC_MAX_MESSAGE_BYTES * 2) }),
        ],
      );
    }
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  await load.confirmOne(id);
}

/** Order events known to have their effect (the quiescence check asks only about the others). */
const appliedKnown = new Set<string>();

/**
 * Waits until every event that can flow has flowed: the outboxes published (but what waits
 * behind a parked poison), the reader at every partition's end, and every order event in
 * Kafka applied by the shipping inbox. Returns how many partitions' committed offsets are
 * still behind their end then: a lag, not a violation (an offset commit lost to a broker
 * outage is made good by the next record's commit, and its records are already applied).
 */
async function quiesce(
  system: ChaosSystem,
  reader: TopicReader,
  timeoutMs: number,
): Promise<number> {
  const n = CHAOS_NAMES;
  const admin = new Kafka({
    clientId: 'chaos-quiesce',
    brokers: system.kafka.brokers,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    let last = '';
    let lagging = 0;
    await waitFor(
      'quiescence',
      async () => {
        const { rows } = await system.db.query<{ orders: number; shipping: number }>(
          `SELECT (SELECT count(*)::int FROM ${n.ordersSchema}.outbox o
                    WHERE o.published_at IS NULL AND o.skipped_at IS NULL
                      AND NOT EXISTS (SELECT 1 FROM ${n.ordersSchema}.outbox p
                                       WHERE p.aggregate_id = o.aggregate_id AND p.parked_at IS NOT NULL
                                         AND p.id <= o.id)) AS orders,
                  (SELECT count(*)::int FROM ${n.shippingSchema}.outbox WHERE published_at IS NULL) AS shipping`,
        );
        const ends = async (topic: string) =>
          new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
        const [orderEnds, shipEnds] = [await ends(n.orderTopic), await ends(n.shipmentTopic)];
        const behind = (at: Map<number, number>, end: Map<number, number>, zero: number) =>
          [...end].filter(([p, e]) => e > 0 && (at.get(p) ?? zero) < e).length;
        const unread =
          behind(reader.positions(n.orderTopic), orderEnds, 0) +
          behind(reader.positions(n.shipmentTopic), shipEnds, 0);
        const unapplied = await unappliedEvents(system, reader);
        const [group] = await admin.fetchOffsets({
          groupId: n.consumerGroup,
          topics: [n.orderTopic],
        });
        const committed = new Map(
          (group?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]),
        );
        lagging = behind(committed, orderEnds, -1);
        last = `unpublished orders ${rows[0]!.orders}, shipping ${rows[0]!.shipping}; partitions unread ${unread}; order events not applied ${unapplied}; offsets behind ${lagging}`;
        return rows[0]!.orders === 0 && rows[0]!.shipping === 0 && unread === 0 && unapplied === 0;
      },
      { timeoutMs, intervalMs: 500 },
    ).catch(() => {
      throw new Error(last);
    });
    return lagging;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Order events the reader saw that the shipping inbox has not applied (yet). */
async function unappliedEvents(system: ChaosSystem, reader: TopicReader): Promise<number> {
  const n = CHAOS_NAMES;
  const unknown: string[] = [];
  for (const records of reader.partitions(n.orderTopic).values())
    for (const r of records) if (!appliedKnown.has(r.eventId)) unknown.push(r.eventId);
  if (unknown.length === 0) return 0;
  const { rows } = await system.db.query<{ event_id: string }>(
    `SELECT event_id::text FROM ${n.shippingSchema}.inbox WHERE consumer = $1 AND event_id = ANY($2::uuid[])`,
    [n.projection, [...new Set(unknown)]],
  );
  for (const r of rows) appliedKnown.add(r.event_id);
  return new Set(unknown.filter((id) => !appliedKnown.has(id))).size;
}
