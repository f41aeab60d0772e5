/**
 * `npm run chaos -- --rounds N --seed S [--cluster] [--load-ms MS] [--clients N]`: the seeded
 * randomized fault run of the sample system (see chaos-run.ts). Prints the seed, each round's
 * faults and figures, every violation, and a last `CHAOS_RESULT {json}` line; exits 1 on any
 * violation (2 on a usage error). The same seed draws the same faults, load mix and timings
 * (what the machine does with them is not seeded).
 */
import { join } from 'node:path';
import { runCli } from '@nest-outbox/core/internal';
import { REPO_ROOT } from '@test/support';
import { runChaos } from './chaos-run';

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

const CHAOS_CLI = {
  name: 'chaos',
  usage: `usage: npm run chaos -- [--rounds N] [--seed S] [--cluster] [--load-ms MS] [--clients N] [--quiesce-ms MS] [--log-dir DIR]
  --rounds      rounds of load + faults + quiescence + history check (default 5)
  --seed        the run's seed (default: drawn and printed)
  --cluster     a three-node Kafka cluster (leader kills) instead of one broker (stop/start)
  --load-ms     HTTP load per round (default 6000)
  --clients     concurrent HTTP clients (default 6)
  --quiesce-ms  longest wait for quiescence after a round (default 600000)
  --log-dir     where the apps' logs go (default .chaos-logs/<seed>-<time>)`,
  flags: {
    rounds: { type: 'integer', min: 1, max: 100_000 },
    seed: { type: 'integer', min: 0, max: 4_294_967_295 },
    cluster: { type: 'boolean' },
    'load-ms': { type: 'integer', min: 500, max: 600_000 },
    clients: { type: 'integer', min: 1, max: 64 },
    'quiesce-ms': { type: 'integer', min: 5000, max: 3_600_000 },
    'log-dir': { type: 'string' },
  },
} as const;

void runCli(CHAOS_CLI, process.argv.slice(2), async ({ values }, io) => {
  const seed = values.seed ?? Math.floor(Math.random() * 4_294_967_295);
  // SIGINT/SIGTERM: finish the round, then stop every process and instance it started.
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const result = await runChaos({
    rounds: values.rounds ?? 5,
    seed,
    cluster: values.cluster ?? false,
    loadMs: values['load-ms'] ?? 6000,
    clients: values.clients ?? 6,
    quiesceMs: values['quiesce-ms'] ?? 600_000,
    logDir: values['log-dir'] ?? join(REPO_ROOT, '.chaos-logs', `${seed}-${Date.now()}`),
    print: (line) => io.out(line),
    signal: stop.signal,
  });
  io.out(
    `chaos: seed ${result.seed}, ${result.roundsDone}/${result.rounds} rounds, ${result.violations.length} violation(s), ` +
      `faults ${JSON.stringify(result.faults)}, ${Math.round(result.elapsedMs / 1000)} s`,
  );
  for (const v of result.violations) io.out(`VIOLATION ${v}`);
  io.out(`CHAOS_RESULT ${JSON.stringify(result)}`);
  // Children and sockets may linger after teardown: the verdict is in, exit with it.
  setTimeout(() => process.exit(process.exitCode), 2000).unref();
  return result.violations.length === 0 ? 0 : 1;
});
