import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { RelayLoop } from '@nest-outbox/relay';
import { logLevel } from 'kafkajs';
import {
  createTopics,
  KAFKA_BROKERS,
  startPrivatePostgres,
  uniqueTopic,
  waitFor,
} from '../../test/support';
import { privateRelayScene, retrying } from '../../test/faults/support/private-scene';
import { RelayStore, type AckedRow } from '../../libs/relay/src/store/relay.store';
import { SeededRandom } from '../chaos/seeded-random';

/** How to run the crash-bound measurement. */
export interface CrashBoundOptions {
  /** PostgreSQL immediate crashes, one per drain. */
  readonly crashes: number;
  /** Events written (relay paused) before each drain. @default 4000 */
  readonly events?: number;
  /** The relay's `batchSize`. @default 1000 */
  readonly batchSize?: number;
  /** CPU burners (`node -e 'for(;;){}'`) running throughout. @default 0 */
  readonly burners?: number;
  /** The private instance's `wal_writer_delay`. @default 200 */
  readonly walWriterDelayMs?: number;
  /** False: every mark commits asynchronously (the control: what the bound is without them). */
  readonly syncMarks?: boolean;
  /**
   * SIGSTOP the WAL writer for each drain: the extreme of a WAL writer starved of CPU, so only
   * synchronous commits and full WAL buffers write WAL out. The crash then waits for
   * PostgreSQL's 5 s SIGKILL of a child that ignores its SIGQUIT.
   */
  readonly stallWalWriter?: boolean;
  readonly seed: number;
  readonly log?: (line: string) => void;
}

/** Minimum, median, 90th percentile and maximum. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly p90: number;
  readonly max: number;
}

/** One crash: what the relay had marked (acknowledged marks) and what the crash forgot. */
export interface CrashSample {
  readonly load1: number;
  readonly markedBefore: number;
  /** Acknowledged marks whose rows were pending again after the restart. */
  readonly forgotten: number;
  /** Age at the crash of the oldest forgotten mark's acknowledgement (0: none forgotten). */
  readonly forgottenMs: number;
  /** Age at the crash of the last acknowledged synchronous mark. */
  readonly sinceSyncMs: number;
}

/** What the run measured. `failures` empty: every event ended published, none parked. */
export interface CrashBoundSummary {
  readonly seed: number;
  readonly crashes: number;
  readonly crashesForgetting: number;
  readonly forgotten: Spread;
  readonly forgottenMs: Spread;
  readonly sinceSyncMs: Spread;
  readonly load1: Spread;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly samples: readonly CrashSample[];
  readonly seconds: number;
  readonly failures: readonly string[];
}

export const spread = (values: readonly number[]): Spread => {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;
  return { min: s[0] ?? 0, median: at(0.5), p90: at(0.9), max: s.at(-1) ?? 0 };
};

const loads = () => loadavg().map((l) => Math.round(l * 100) / 100);

/**
 * Crashes a private PostgreSQL (`pg_ctl stop -m immediate`) mid-drain, `crashes` times, under a
 * real relay (default options, `synchronousCommit: false`) publishing to the shared broker, and
 * counts after each restart the marks the relay had seen acknowledged that the crash forgot
 * (their rows pending again, or marked again after the restart). Each drain is a backlog
 * written while the relay is paused, so no writer's commit flushes the relay's WAL for it; the
 * crash comes at a random moment (0-500 ms) after a seeded fraction (15-75 %) of it is marked.
 */
export async function runCrashBound(options: CrashBoundOptions): Promise<CrashBoundSummary> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const events = options.events ?? 4000;
  const random = new SeededRandom(options.seed);
  const loadBefore = loads();
  const burners: ChildProcess[] = Array.from({ length: options.burners ?? 0 }, () =>
    spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
  );
  const delay = `'${options.walWriterDelayMs ?? 200}ms'`;
  const pg = await startPrivatePostgres({ settings: { wal_writer_delay: delay } });
  const scene = await privateRelayScene(pg, 'crash_bound', () => KAFKA_BROKERS);
  const failures: string[] = [];
  const samples: CrashSample[] = [];
  try {
    const topic = uniqueTopic('crash-bound');
    await createTopics([{ topic, numPartitions: 3 }]);
    const relay = await scene.start({
      connection: { connectionString: pg.url, max: 4 },
      kafka: { clientId: 'crash-bound', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING },
      routing: { defaultTopic: topic },
      tuning: {
        batchSize: options.batchSize ?? 1000,
        leaseMs: 30_000,
        publishTimeoutMs: 10_000,
        retry: { baseDelayMs: 100, maxDelayMs: 1000 },
      },
    });
    const loop = relay.get(RelayLoop);
    const acks = watchMarks(relay.get(RelayStore), options.syncMarks ?? true);
    for (let crash = 1; crash <= options.crashes; crash++) {
      await loop.pause();
      acks.marked.clear();
      await scene.producer.writeMany(events, 200, 500, `c${crash}-`);
      const threshold = Math.round(events * (0.15 + 0.6 * random.next()));
      if (options.stallWalWriter) {
        const { rows } = await scene.schema.pool.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'",
        );
        for (const { pid } of rows) process.kill(pid, 'SIGSTOP');
      }
      await loop.resume();
      await waitFor('marks before the crash', () => acks.marked.size >= threshold, {
        timeoutMs: 300_000,
        intervalMs: 2,
      });
      // Then a random moment, not the one right after a mark.
      await new Promise((resolve) => setTimeout(resolve, 500 * random.next()));
      // pg_ctl runs synchronously: no mark is acknowledged between these two clocks.
      const crashAt = Date.now();
      const load1 = loadavg()[0]!;
      const markedBefore = acks.marked.size;
      const sinceSyncMs = crashAt - acks.lastSyncAckAt;
      pg.crash();
      const deadAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Acknowledged before the restart: late answers to statements the database ran before it died.
      const acked = new Map(acks.marked);
      pg.start();
      await waitFor('drained after the crash', async () => (await scene.pending()) === 0, {
        timeoutMs: 600_000,
        intervalMs: 200,
      });
      const ids = [...acked.keys()];
      const { rows } = await retrying(() =>
        scene.schema.pool.query<{ id: string }>(
          `SELECT id::text FROM crash_bound.outbox WHERE id = ANY($1::bigint[])
              AND (published_at IS NULL OR published_at >= $2)`,
          [ids, new Date(deadAt)],
        ),
      );
      const oldest = Math.min(...rows.map((r) => acked.get(r.id)!));
      const sample: CrashSample = {
        load1: Math.round(load1 * 100) / 100,
        markedBefore,
        forgotten: rows.length,
        forgottenMs: rows.length === 0 ? 0 : Math.max(0, crashAt - oldest),
        sinceSyncMs,
      };
      samples.push(sample);
      log(`crash ${crash}: ${JSON.stringify(sample)}`);
    }
    const { rows: parked } = await scene.schema.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM crash_bound.outbox WHERE parked_at IS NOT NULL',
    );
    if (parked[0]!.n > 0) failures.push(`${parked[0]!.n} events parked`);
  } finally {
    await scene.close();
    pg.destroy();
    for (const burner of burners) burner.kill();
  }
  return {
    seed: options.seed,
    crashes: samples.length,
    crashesForgetting: samples.filter((s) => s.forgotten > 0).length,
    forgotten: spread(samples.map((s) => s.forgotten)),
    forgottenMs: spread(samples.map((s) => s.forgottenMs)),
    sinceSyncMs: spread(samples.map((s) => s.sinceSyncMs)),
    load1: spread(samples.map((s) => s.load1)),
    loadBefore,
    loadAfter: loads(),
    samples,
    seconds: Math.round((Date.now() - started) / 1000),
    failures,
  };
}

/**
 * Records every mark the store sees acknowledged (row id -> when) and when the last synchronous
 * one was acknowledged, by wrapping the store's `mark` and its commit-mode choice.
 */
function watchMarks(store: RelayStore, syncMarks: boolean) {
  const watch = { marked: new Map<string, number>(), lastSyncAckAt: Date.now() };
  const internals = store as unknown as { markCommitMode(): 'on' | 'off' };
  const mode = internals.markCommitMode.bind(store);
  let last: 'on' | 'off' = 'off';
  internals.markCommitMode = () => (last = syncMarks ? mode() : 'off');
  const mark = store.mark.bind(store);
  store.mark = async (token: string, rows: readonly AckedRow[]) => {
    const pending = mark(token, rows); // chooses its commit mode synchronously
    const sync = last === 'on';
    const notMarked = await pending;
    const at = Date.now();
    if (sync) watch.lastSyncAckAt = at;
    for (const row of rows) if (!notMarked.has(row.id)) watch.marked.set(row.id, at);
    return notMarked;
  };
  return watch;
}
