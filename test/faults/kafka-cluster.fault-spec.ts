import {
  acquireFaultSlot,
  startKafkaCluster,
  uniqueTopic,
  waitFor,
  type KafkaCluster,
} from '@test/support';
import { RelayScene } from '../../libs/relay/test/relay-test.fixture';
import { busiestLeader, readBack, startClusterRelay } from './support/cluster-relay';
import { runConsumerChurn } from './support/consumer-churn';

/**
 * Faults of a production-shaped Kafka: three KRaft nodes, replication factor 3,
 * min.insync.replicas 2 (test/support/kafka-cluster.ts). One cluster for the file; the
 * file holds the fault slot (one fault file at a time).
 */
describe('Relay and inbox on a three-broker cluster (RF 3, min.insync.replicas 2): leaders killed, in-sync replicas lost, consumers churned', () => {
  let cluster: KafkaCluster;
  let release: (() => void) | undefined;
  const scenes: RelayScene[] = [];

  beforeAll(async () => {
    release = await acquireFaultSlot();
    cluster = await startKafkaCluster();
  }, 1_200_000);

  afterAll(async () => {
    for (const scene of scenes) await scene.close().catch(() => undefined);
    await cluster?.destroy();
    release?.();
  }, 120_000);

  const newScene = async (prefix: string) => {
    const scene = await RelayScene.create(prefix, () => cluster.brokers);
    scenes.push(scene);
    return scene;
  };

  const parked = async (scene: RelayScene) =>
    Number(
      (
        await scene.schema.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM "${scene.schema.name}".outbox WHERE parked_at IS NOT NULL`,
        )
      ).rows[0]!.n,
    );

  it('Given one relay draining 20,000 events of 1,000 aggregates, when the leader of the busiest partitions is SIGKILLed and restarted, then another broker, then every event is in the topic, per key in version order, each duplicate explained by a resend, nothing parked, and health went down and came back', async () => {
    const topic = uniqueTopic('faults-failover');
    await cluster.createTopics([{ topic, numPartitions: 6 }]);
    const scene = await newScene('faults_failover');
    const { recording, health } = await startClusterRelay(scene, cluster, topic);
    let written = 0;
    const writer = (async () => {
      for (let tx = 0; tx < 40; tx++) {
        const events = Array.from({ length: 500 }, (_, j) => ({
          aggregateId: `agg${(tx * 500 + j) % 1000}`,
        }));
        await scene.producer.write(events);
        written += events.length;
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    })();
    const killed: number[] = [];
    for (const after of [4000, 12_000]) {
      await waitFor(`${after} events written`, () => written >= after, { timeoutMs: 120_000 });
      const leader = await busiestLeader(cluster, topic, killed);
      const since = Date.now();
      await cluster.node(leader).kill();
      killed.push(leader);
      await waitFor('relay health down or degraded', () => health.wentDown(since), {
        timeoutMs: 60_000,
      });
      await cluster.node(leader).start();
      await cluster.waitInSync(topic, 3);
    }
    await writer;
    await waitFor('the outbox drained', async () => (await scene.pending()) === 0, {
      timeoutMs: 180_000,
    });
    await waitFor('relay health up again', () => health.last === 'up', { timeoutMs: 60_000 });
    health.stop();

    const back = await readBack(scene, cluster, topic, recording);
    expect(killed).toHaveLength(2);
    expect(new Set(killed).size).toBe(2);
    expect(back.missing).toEqual([]);
    expect(back.orderViolations).toEqual([]);
    expect(back.unexplained).toEqual([]);
    expect(await parked(scene)).toBe(0);
    const failedSends = recording.attempts.filter((a) => a.error !== undefined).length;
    process.stdout.write(
      `[faults] leader failover: 20000 events, ${back.records.length} records, ${back.duplicates.length} duplicates (each in >= 2 sends), ${failedSends} failed sends, nodes killed ${killed.join(', ')}\n`,
    );
  }, 600_000);

  it('Given two of three brokers down (min.insync.replicas unmet, no controller quorum), then publishing stops with transient errors and backs off past maxAttempts without parking, and when they return everything is published, in order', async () => {
    const topic = uniqueTopic('faults-isr');
    await cluster.createTopics([{ topic, numPartitions: 6 }]);
    const scene = await newScene('faults_isr');
    // maxAttempts 3: an outage would exhaust it within seconds; it must park nothing.
    const { recording, health } = await startClusterRelay(scene, cluster, topic, {
      tuning: {
        retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 },
        publishTimeoutMs: 3000,
        leaseMs: 10_000,
      },
    });
    await scene.producer.writeMany(300, 50, 100, 'before');
    await waitFor('first drain', async () => (await scene.pending()) === 0, { timeoutMs: 60_000 });

    const [first, second] = [cluster.nodes[1]!, cluster.nodes[2]!];
    await first.kill();
    await cluster.waitInSync(topic, 2);
    await second.kill();
    const outageStart = Date.now();
    await scene.producer.writeMany(300, 50, 100, 'during');
    await waitFor(
      'several failed attempts per head (past maxAttempts)',
      async () => {
        const { rows } = await scene.schema.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM "${scene.schema.name}".outbox
            WHERE published_at IS NULL AND jsonb_array_length(error_history) >= 4`,
        );
        return Number(rows[0]!.n) >= 10;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(await parked(scene)).toBe(0);
    expect(await scene.pending()).toBe(300);
    // Each failure was recorded as transient (never permanent), and the heads backed off: no
    // retry sooner than half the base delay; past maxAttempts, uncounted, each waits the
    // delay of attempt maxAttempts (jittered: half to all of min(cap, base * 2^2) = 200-400 ms).
    const { rows: histories } = await scene.schema.pool.query<{
      history: { at: string; kind: string }[];
    }>(
      `SELECT error_history AS history FROM "${scene.schema.name}".outbox
        WHERE published_at IS NULL AND jsonb_array_length(error_history) >= 4`,
    );
    const kinds = new Set(histories.flatMap((r) => r.history.map((e) => e.kind)));
    expect([...kinds].filter((k) => k !== 'transient' && k !== 'throttled')).toEqual([]);
    const gaps = histories.map((r) =>
      r.history.slice(1).map((e, i) => Date.parse(e.at) - Date.parse(r.history[i]!.at)),
    );
    expect(gaps.flat().filter((ms) => ms < 50)).toEqual([]);
    expect(gaps.map((g) => g[g.length - 1]!).filter((ms) => ms < 200)).toEqual([]);
    const failed = recording.attempts.filter(
      (a) => a.start >= outageStart && a.error !== undefined,
    );
    expect(failed.length).toBeGreaterThan(3);

    await Promise.all([first.start(), second.start()]);
    await cluster.waitInSync(topic, 3);
    const backAt = Date.now();
    try {
      await waitFor('the outage backlog drained', async () => (await scene.pending()) === 0, {
        timeoutMs: 180_000,
      });
    } catch (error) {
      // What the relay did since the brokers came back (error classes and messages of Kafka
      // clients only: no payloads), to tell a stuck relay from a slow one.
      const since = recording.attempts.filter((a) => a.start >= backAt || a.end === undefined);
      const last = since.slice(-8).map((a) => ({
        atMs: a.start - backAt,
        records: a.eventIds.length,
        tookMs: a.end === undefined ? 'in flight' : a.end - a.start,
        error:
          a.error === undefined
            ? undefined
            : `${(a.error as Error).name}: ${(a.error as Error).message}`,
      }));
      const { rows: reasons } = await scene.schema.pool.query<{ reason: string; n: string }>(
        `SELECT left(parked_reason, 80) AS reason, count(*) AS n FROM "${scene.schema.name}".outbox
          WHERE parked_at IS NOT NULL GROUP BY 1`,
      );
      throw new Error(
        `${(error as Error).message}; pending ${await scene.pending()}; parked ${JSON.stringify(reasons)}; ${since.length} publish calls since the brokers came back (or still in flight), the last: ${JSON.stringify(last)}`,
      );
    }
    health.stop();
    const back = await readBack(scene, cluster, topic, recording);
    expect(back.missing).toEqual([]);
    expect(back.orderViolations).toEqual([]);
    expect(back.unexplained).toEqual([]);
    expect(await parked(scene)).toBe(0);
    process.stdout.write(
      `[faults] min.insync unmet: ${failed.length} failed sends during the outage (all transient, last retries >= ${Math.min(...gaps.map((g) => g[g.length - 1]!))} ms apart), 0 parked, ${back.duplicates.length} duplicates\n`,
    );
  }, 600_000);

  it('Given three inbox consumers of one group on 6 partitions, when leaders are killed and consumers are SIGKILLed and restarted in turn, then each event has exactly one effect, committed offsets never ran ahead of committed effects, and every partition is consumed', async () => {
    const report = await runConsumerChurn(cluster);
    expect(report.offsetViolations).toEqual([]);
    expect(report.missingEffects).toEqual([]);
    expect(report.doubleEffects).toEqual([]);
    expect(report.unconsumedPartitions).toEqual([]);
    expect(report.samples).toBeGreaterThan(10);
    process.stdout.write(
      `[faults] consumer churn: ${report.events} events (+${report.resent} resent, ${report.unackedSends} send(s) resolved without every partition's ack and sent again), ${report.samples} offset samples checking ${report.checked} offsets, faults: ${report.faults.join('; ')}\n`,
    );
  }, 600_000);
});
