import type { RelayModuleOptions } from '@nest-outbox/relay';
import { spawnTs, type TsChild } from '@test/support';
import type { BenchOutbox } from './bench-outbox';
import type { CompiledBuild } from './compiled-build';
import { cpuSeconds } from './proc-stats';
import { warmUpShape, type FillShape } from './relay-fill';
import { RssSampler } from './rss-sampler';

/** The relay in a child process: libs/relay/test/relay-child.ts takes its options as JSON. */
const RELAY_CHILD = 'libs/relay/test/relay-child.ts';

/** How the relay processes of a drain run. */
export interface RelayProcesses {
  readonly count: number;
  readonly options: (relayId: string) => RelayModuleOptions;
  /** Compiled JavaScript (plain Node), or ts-node when undefined. */
  readonly compiled?: CompiledBuild;
  readonly nullPublisher?: boolean;
  /**
   * Events drained before the timed fill (on aggregates of their own), so that the timed
   * drain measures warm processes (JIT, connections, metadata) as a long-running relay is.
   */
  readonly warmUpEvents?: number;
}

/** What a drain by relay processes measured. */
export interface ProcessDrain {
  readonly rate: number;
  /** Peak VmRSS over the relay processes, MB. */
  readonly rssMb: number;
  /** Node CPU (user + system) of all relay processes per event, microseconds. */
  readonly cpuUsPerEvent: number;
  /** The fill's INSERT, before the timed drain. */
  readonly fillMs: number;
  /** Claims that published something, and their mean size (see `BenchOutbox.claimShape`). */
  readonly claims: number;
  readonly eventsPerClaim: number;
}

function spawnRelay(relays: RelayProcesses, relayId: string): TsChild {
  const env = {
    RELAY_TEST_OPTIONS: JSON.stringify(relays.options(relayId)),
    ...(relays.nullPublisher ? { RELAY_PUBLISHER: 'null' } : {}),
  };
  return relays.compiled ? relays.compiled.spawn(RELAY_CHILD, env) : spawnTs(RELAY_CHILD, env);
}

/**
 * Relay processes started on an empty table, then one committed fill, timed from its commit
 * to the last `published_at`: the relays cannot see rows of a statement that has not
 * committed yet. The VACUUM ANALYZE that the raw variants run before their loop runs here
 * during the drain (the raw Kafka reference does the same).
 */
export async function drainWithProcesses(
  outbox: BenchOutbox,
  relays: RelayProcesses,
  shape: FillShape,
): Promise<ProcessDrain> {
  await outbox.reset();
  const children: TsChild[] = [];
  for (let i = 0; i < relays.count; i++) children.push(spawnRelay(relays, `bench-${i}`));
  try {
    for (const child of children) await child.waitForOutput('RELAY READY', 120_000);
    const pids = children.map((c) => c.process.pid ?? 0);
    const rss = new RssSampler(() => pids);
    if (relays.warmUpEvents) {
      await outbox.fill(warmUpShape(shape, relays.warmUpEvents), false);
      await outbox.drainedAt();
    }
    const afterId = await outbox.lastId();
    const fillMs = await outbox.fill(shape, false);
    const cpuBefore = pids.map(cpuSeconds);
    const startedAt = Date.now();
    await outbox.vacuum();
    const endedAt = await outbox.drainedAt();
    const cpu = pids.reduce((sum, pid, i) => sum + cpuSeconds(pid) - cpuBefore[i]!, 0);
    const shapeOfClaims = await outbox.claimShape(afterId);
    return {
      ...shapeOfClaims,
      rate: shape.events / ((endedAt - startedAt) / 1000),
      rssMb: rss.stop(),
      cpuUsPerEvent: (cpu * 1e6) / shape.events,
      fillMs,
    };
  } finally {
    for (const child of children) await child.stop(20_000);
  }
}
