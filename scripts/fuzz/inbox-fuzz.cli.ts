/**
 * `npm run fuzz -- --records N [--seed S] [--handler record|batch] [--health-limit-ms MS]`:
 * the long inbox fuzz run (see inbox-fuzz.run.ts) against the shared broker and PostgreSQL.
 * Prints progress, then a summary (records, stuck partitions, escaped errors, redeliveries,
 * seed) and a last `FUZZ_RESULT {json}` line; exits 1 when a property failed.
 * `npm run fuzz -- --relay --rows N [--seed S]`: the relay's row fuzz (relay-fuzz.run.ts) instead.
 * `npm run fuzz -- --crash N [--events E] [--batch-size B] [--burners K] [--wal-writer-delay-ms MS] [--without-sync-marks] [--stall-wal-writer]`:
 * N PostgreSQL crashes mid-drain under a relay (crash-bound.run.ts); prints the marks each forgot.
 */
import { runCli } from '@nest-outbox/core/internal';
import { runInboxFuzz } from './inbox-fuzz.run';
import { runRelayFuzz } from './relay-fuzz.run';
import { runCrashBound, type Spread } from './crash-bound.run';

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

const FUZZ_CLI = {
  name: 'fuzz',
  usage: `usage: npm run fuzz -- [--records N] [--seed S] [--handler record|batch] [--health-limit-ms MS]
  --records          generated records (default 10000)
  --seed             fast-check seed (default: drawn and printed)
  --handler          record (@InboxHandler, default) or batch (@InboxBatchHandler)
  --health-limit-ms  bound of each /health probe (default 1000)
usage: npm run fuzz -- --relay [--rows N] [--seed S]
  --relay            fuzz the relay with generated outbox rows instead
  --rows             generated rows (default 20000)
usage: npm run fuzz -- --crash N [--events E] [--batch-size B] [--burners K] [--wal-writer-delay-ms MS] [--without-sync-marks] [--stall-wal-writer]
  --crash            PostgreSQL immediate crashes mid-drain (private instance); prints the marks forgotten
  --events           events per drain (default 4000)
  --batch-size       the relay's batchSize (default 1000)
  --burners          CPU burners running meanwhile (default 0)
  --wal-writer-delay-ms  the instance's wal_writer_delay (default 200)
  --without-sync-marks   the control: every mark commits asynchronously
  --stall-wal-writer     SIGSTOP the WAL writer during each drain (a WAL writer starved of CPU)`,
  flags: {
    records: { type: 'integer', min: 1, max: 10_000_000 },
    seed: { type: 'integer', min: 0, max: 4_294_967_295 },
    handler: { type: 'string' },
    'health-limit-ms': { type: 'integer', min: 100, max: 60_000 },
    relay: { type: 'boolean' },
    rows: { type: 'integer', min: 1, max: 10_000_000 },
    crash: { type: 'integer', min: 1, max: 10_000 },
    events: { type: 'integer', min: 100, max: 1_000_000 },
    'batch-size': { type: 'integer', min: 1, max: 100_000 },
    burners: { type: 'integer', min: 0, max: 64 },
    'wal-writer-delay-ms': { type: 'integer', min: 1, max: 10_000 },
    'without-sync-marks': { type: 'boolean' },
    'stall-wal-writer': { type: 'boolean' },
  },
} as const;

void runCli(FUZZ_CLI, process.argv.slice(2), async ({ values }, io) => {
  const seed = values.seed ?? Math.floor(Math.random() * 4_294_967_295);
  if (values.crash) {
    io.out(`crash bound: ${values.crash} crashes, seed ${seed}, ${JSON.stringify(values)}`);
    const summary = await runCrashBound({
      crashes: values.crash,
      events: values.events,
      batchSize: values['batch-size'],
      burners: values.burners,
      walWriterDelayMs: values['wal-writer-delay-ms'],
      syncMarks: !values['without-sync-marks'],
      stallWalWriter: values['stall-wal-writer'],
      seed,
      log: (line) => io.out(line),
    });
    const show = (s: Spread) => `min ${s.min} / median ${s.median} / p90 ${s.p90} / max ${s.max}`;
    io.out(
      [
        `crashes ${summary.crashes}, ${summary.crashesForgetting} forgot marks`,
        `marks forgotten: ${show(summary.forgotten)}`,
        `ms of marks forgotten: ${show(summary.forgottenMs)}`,
        `ms since the last synchronous mark: ${show(summary.sinceSyncMs)}`,
        `load (1 min) at the crashes: ${show(summary.load1)}; before ${summary.loadBefore.join(' ')}, after ${summary.loadAfter.join(' ')}`,
        `seed ${summary.seed}, ${summary.seconds} s`,
        ...summary.failures.map((f) => `FAILED: ${f}`),
      ].join('\n'),
    );
    io.out(`CRASH_RESULT ${JSON.stringify({ ...summary, samples: undefined })}`);
    return summary.failures.length === 0 ? 0 : 1;
  }
  if (values.relay) {
    const rows = values.rows ?? 20_000;
    io.out(`relay fuzz: ${rows} rows, seed ${seed}`);
    const summary = await runRelayFuzz({ rows, seed, log: (line) => io.out(line) });
    io.out(
      [
        `rows ${summary.rows}: published ${summary.published}, parked ${JSON.stringify(summary.parked)}, held behind them ${summary.held}`,
        `records checked ${summary.recordsChecked}, loop errors ${summary.loopErrors}`,
        `control events ${summary.controls}, latency ms ${JSON.stringify(summary.controlLatencyMs)}`,
        `seed ${summary.seed}, ${summary.seconds} s`,
        ...summary.failures.map((f) => `FAILED: ${f}`),
      ].join('\n'),
    );
    io.out(`FUZZ_RESULT ${JSON.stringify(summary)}`);
    return summary.failures.length === 0 ? 0 : 1;
  }
  const handler = values.handler === 'batch' ? 'batch' : 'record';
  io.out(`inbox fuzz: ${values.records ?? 10_000} records, seed ${seed}, handler ${handler}`);
  const summary = await runInboxFuzz({
    records: values.records ?? 10_000,
    seed,
    handler,
    healthLimitMs: values['health-limit-ms'],
    log: (line) => io.out(line),
  });
  io.out(
    [
      `records ${summary.records} (canaries ${summary.canaries}, applied ${summary.canariesApplied})`,
      `stuck partitions ${summary.stuckPartitions}`,
      `escaped errors ${summary.escapedErrors}`,
      `redeliveries ${summary.redeliveries}`,
      `marker lines ${summary.markerLines}`,
      `health probes ${summary.health.probes}, slowest ${summary.health.slowestMs} ms, failed ${summary.health.failures}`,
      `seed ${summary.seed}, ${summary.seconds} s`,
      ...summary.failures.map((f) => `FAILED: ${f}`),
    ].join('\n'),
  );
  io.out(`FUZZ_RESULT ${JSON.stringify(summary)}`);
  return summary.failures.length === 0 ? 0 : 1;
});
