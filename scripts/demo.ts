/**
 * `npm run demo`: the sample order system end to end, in one command.
 *
 * Brings the stack up (scripts/stack.sh, as the tests do), starts the order service (which
 * runs its migrations), a standalone relay and the shipping service as child processes,
 * drives DEMO_ORDERS orders (default 2,000) from DEMO_CONCURRENCY (default 16) concurrent
 * HTTP clients, SIGKILLs the relay midway and starts it again, waits until everything has
 * flowed, prints a summary and the reconciliation verdict, stops the three apps, says which
 * services it leaves running (the stack's broker and embedded PostgreSQL, for the next run) and
 * how to stop them, and exits non-zero when reconciliation fails. DEMO_KEEP=1 keeps the
 * schemas and topics.
 */
import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from '../test/support/env';
import { testKafka } from '../test/support/kafka';
import { waitFor } from '../test/support/poll';
import {
  metricSum,
  outboxFigures,
  runOrderWorkload,
  SampleSystem,
  shippingFigures,
  type ReconciliationView,
  type WorkloadResult,
} from './sample-system';

const ORDERS = Number(process.env.DEMO_ORDERS ?? 2000);
const CONCURRENCY = Number(process.env.DEMO_CONCURRENCY ?? 16);
const t0 = Date.now();

function say(line: string): void {
  const s = ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
  process.stdout.write(`[demo ${s}s] ${line}\n`);
}

/** What scripts/stack.sh started and still runs, one line each. */
function stackStarted(): string[] {
  const out = execFileSync('bash', [`${REPO_ROOT}/scripts/stack.sh`, 'started'], {
    encoding: 'utf8',
  });
  return out.split('\n').filter(Boolean);
}

/** The last lines: what keeps running after the demo, and the command that stops it. */
function sayWhatRuns(before: readonly string[]): void {
  const running = stackStarted();
  if (running.length === 0) {
    say('left running: nothing the demo started (PostgreSQL and Kafka were up before it)');
    return;
  }
  const mark = (line: string) => (before.includes(line) ? `${line} (from an earlier run)` : line);
  say(`left running for the next run: ${running.map(mark).join('; ')}`);
  say('stop them with: npm run stack:down (bash scripts/stack.sh clean also deletes their data)');
}

/** Samples the age of the oldest unpublished order event once a second. */
function sampleOldestAge(system: SampleSystem): { samples: [number, number][]; stop(): void } {
  const samples: [number, number][] = [];
  const timer = setInterval(() => {
    outboxFigures(system.db, system.names.ordersSchema)
      .then((f) => samples.push([(Date.now() - t0) / 1000, f.oldestPendingAgeMs]))
      .catch(() => undefined);
  }, 1000);
  return { samples, stop: () => clearInterval(timer) };
}

async function countWire(system: SampleSystem): Promise<{ records: number; distinct: number }> {
  const admin = testKafka(system.brokers).admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(system.names.orderTopic);
  await admin.disconnect();
  const records = offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  const ids = new Set<string>();
  const consumer = testKafka(system.brokers).consumer({
    groupId: `${system.names.consumerGroup}-audit`,
  });
  await consumer.connect();
  await consumer.subscribe({ topic: system.names.orderTopic, fromBeginning: true });
  let seen = 0;
  await consumer.run({
    autoCommit: false,
    eachMessage: ({ message }) => {
      seen += 1;
      const id = message.headers?.event_id;
      if (id) ids.add(id.toString());
      return Promise.resolve();
    },
  });
  await waitFor('the audit reader to read the order topic', () => seen >= records, {
    timeoutMs: 60_000,
  });
  await consumer.disconnect();
  await admin
    .connect()
    .then(() => admin.deleteGroups([`${system.names.consumerGroup}-audit`]))
    .catch(() => undefined);
  await admin.disconnect().catch(() => undefined);
  return { records, distinct: ids.size };
}

function timeline(samples: [number, number][]): string {
  const buckets = new Map<number, number>();
  for (const [t, age] of samples) {
    const b = Math.floor(t / 5) * 5;
    buckets.set(b, Math.max(buckets.get(b) ?? 0, age));
  }
  return [...buckets]
    .map(
      ([b, age]) =>
        `    t=${String(b).padStart(4)}s  ${'#'.repeat(Math.min(60, Math.ceil(age / 250)))} ${(age / 1000).toFixed(1)} s`,
    )
    .join('\n');
}

async function drive(system: SampleSystem): Promise<WorkloadResult> {
  let relayKilled = false;
  let restart: Promise<void> | undefined;
  const result = await runOrderWorkload(system.http, {
    orders: ORDERS,
    concurrency: CONCURRENCY,
    onOrderDone: (done, r) => {
      if (done % 250 === 0)
        say(
          `workload: ${done}/${ORDERS} orders (${r.confirmed} confirmed, ${r.cancelled} cancelled, ${r.conflicts} rejected with 409)`,
        );
      if (!relayKilled && done >= ORDERS / 2) {
        relayKilled = true;
        const relay = system.relay!;
        restart = (async () => {
          // Armed now, the relay SIGKILLs itself right after the broker acknowledged its next
          // batch and before marking it: the worst moment, so that batch is published twice.
          relay.signal('SIGUSR2');
          await waitFor('the relay to die', () => !relay.running, { timeoutMs: 30_000 });
          say(
            'relay: SIGKILL right after a batch was acknowledged, before it was marked; starting it again',
          );
          await relay.start();
          say('relay: restarted, draining the backlog');
        })();
      }
    },
  });
  await restart;
  return result;
}

async function main(): Promise<number> {
  say(`bringing the stack up (scripts/stack.sh up)`);
  const before = stackStarted();
  execFileSync('bash', [`${REPO_ROOT}/scripts/stack.sh`, 'up'], { stdio: 'inherit' });
  const system = await SampleSystem.create({
    prefix: 'demo',
    relay: 'standalone',
    // apps/relay with its fault seam: SIGUSR2 arms a SIGKILL right after the next acked batch.
    faultRelay: true,
    partitions: 6,
    leaseMs: 5000,
    shippingEnv: { CONSUMER_CONCURRENCY: '6' },
  });
  const stopAll = async () => {
    say('stopping order-service, the relay and shipping-service');
    if (process.env.DEMO_KEEP === '1') {
      await Promise.all([system.orders.stop(), system.shipping.stop(), system.relay?.stop()]);
      say(
        `kept schemas ${system.names.ordersSchema}, ${system.names.shippingSchema} and topic ${system.names.orderTopic}`,
      );
    } else {
      await system.teardown();
    }
    sayWhatRuns(before);
  };
  process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));
  try {
    say(`starting order-service (runs its migrations) in schema ${system.names.ordersSchema}`);
    await system.orders.start();
    const { rows } = await system.db.query(
      `SELECT name FROM "${system.names.ordersSchema}".migrations ORDER BY id`,
    );
    say(`migrations applied: ${rows.map((r: { name: string }) => r.name).join(', ')}`);
    say('starting the standalone relay and shipping-service');
    await Promise.all([system.relay!.start(), system.shipping.start()]);
    say(
      `all three apps answer /health; driving ${ORDERS} orders from ${CONCURRENCY} concurrent clients`,
    );
    const ages = sampleOldestAge(system);
    const result = await drive(system);
    say(
      `workload done in ${(result.elapsedMs / 1000).toFixed(1)} s; waiting until everything has flowed`,
    );
    const outbox = await waitFor(
      'the order outbox to drain',
      async () => {
        const f = await outboxFigures(system.db, system.names.ordersSchema);
        return f.pending === 0 ? f : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    await waitFor(
      'shipping-service to consume every order event',
      async () => {
        const s = await shippingFigures(system.db, system.names.shippingSchema);
        if (Date.now() % 5000 < 500)
          say(`shipping-service: ${s.inboxRows}/${outbox.recorded} order events applied`);
        return s.inboxRows >= outbox.recorded;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    ages.stop();
    const report = (await system.http.reconcile(new Date(t0 - 60_000), new Date())).body;
    const shipping = await shippingFigures(system.db, system.names.shippingSchema);
    const wire = await countWire(system);
    const metrics = await system.http.metrics(system.shipping.url);
    const pressure = await pressureLine(system);
    printSummary(
      result,
      outbox,
      wire,
      shipping,
      metricSum(metrics, 'nest_outbox_inbox_events_duplicate_total'),
      ages.samples,
      report,
      pressure,
    );
    await stopAll();
    return report.verdict === 'clean' && result.errors === 0 ? 0 : 1;
  } catch (error) {
    process.stderr.write(`demo failed: ${(error as Error).message}\n${system.outputs()}\n`);
    await stopAll().catch(() => undefined);
    return 1;
  }
}

/** A gauge's value in Prometheus text (`+Inf` included), or undefined. */
function gauge(text: string, name: string): number | undefined {
  const line = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!line) return undefined;
  return line[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(line[1]);
}

const seconds = (s: number | null | undefined) =>
  s === null || s === undefined || !Number.isFinite(s) ? 'not approaching the budget' : `${s} s`;

/** The order service's pressure state (its /health) and the standalone relay's forecast. */
async function pressureLine(system: SampleSystem): Promise<string> {
  const health = (await system.orders.health()).body as {
    details?: { pressure?: { state?: string; forecastSeconds?: number | null } };
  };
  const own = health.details?.pressure;
  const relay = system.relay ? await system.http.metrics(system.relay.url).catch(() => '') : '';
  const level = gauge(relay, 'nest_outbox_relay_pressure_level');
  const levels = ['ok', 'warn', 'critical'];
  return (
    `pressure      order-service ${own?.state ?? 'unknown'} (forecast to the backlog budget: ` +
    `${seconds(own?.forecastSeconds)}); relay ${level === undefined ? 'unknown' : levels[level]} ` +
    `(forecast: ${seconds(gauge(relay, 'nest_outbox_relay_backlog_forecast_seconds'))})`
  );
}

function printSummary(
  result: WorkloadResult,
  outbox: Awaited<ReturnType<typeof outboxFigures>>,
  wire: { records: number; distinct: number },
  shipping: Awaited<ReturnType<typeof shippingFigures>>,
  duplicates: number,
  ages: [number, number][],
  report: ReconciliationView,
  pressure: string,
): void {
  const lines = [
    '',
    '================ nest-outbox sample order system: summary ================',
    `orders        ${result.created} created, ${result.confirmed} confirmed, ${result.cancelled} cancelled, ` +
      `${result.conflicts} invalid transitions answered 409, ${result.errors} unexpected answers`,
    `events        ${outbox.recorded} recorded in the order outbox, ${outbox.published} published ` +
      `(${wire.records} Kafka records for ${wire.distinct} distinct events: ${wire.records - wire.distinct} republished), ` +
      `${outbox.parked} parked`,
    `effects       ${shipping.inboxRows} applied by shipping-service (inbox rows), ${duplicates} duplicates absorbed ` +
      `since its start, ${shipping.rejected} rejected; ${shipping.shipments} shipments ` +
      `(${shipping.cancelledShipments} cancelled), ${shipping.ordersWithSeveralShipments} orders with two shipments`,
    pressure,
    'oldest unpublished order event (max per 5 s):',
    timeline(ages),
    `reconciliation ${report.verdict.toUpperCase()}: ${report.confirmedOrders} confirmed orders, ` +
      `${report.confirmedEventsPublished} order.confirmed published, ${report.shipments} shipments; ` +
      `missing events ${report.missingEvents.length}, missing shipments ${report.missingShipments.length}, ` +
      `unexpected shipments ${report.unexpectedShipments.length}, uncancelled ${report.uncancelledShipments.length}`,
  ];
  if (report.verdict !== 'clean') {
    lines.push(`  missing events: ${report.missingEvents.slice(0, 20).join(', ')}`);
    lines.push(`  missing shipments: ${report.missingShipments.slice(0, 20).join(', ')}`);
  }
  lines.push('==========================================================================', '');
  process.stdout.write(lines.join('\n'));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo failed: ${String(error)}\n`);
    process.exit(1);
  },
);
