import {
  consumeUntil,
  createTopics,
  KAFKA_BROKERS,
  uniqueTopic,
  waitFor,
  type PrivatePostgres,
} from '@test/support';
import { logLevel } from 'kafkajs';
import { RelayHealthIndicator } from '../src/health/relay.health-indicator';
import { RelayOperatorService } from '../src/operator/relay-operator.service';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from '../src/publisher/relay-publisher.interface';
import { checkDelivery } from './relay-test.fixture';
import { startLogicalPostgres, WalScene } from './wal-test.fixture';

/** A permanent failure of the records whose payload says `"poison":true`, while `armed`. */
class PoisonError extends Error {}
class PoisonPublisher implements RelayPublisher {
  armed = true;
  private readonly inner = new KafkaPublisher({
    clientId: 'wal-poison',
    brokers: KAFKA_BROKERS,
    logLevel: logLevel.NOTHING,
  });
  connect = () => this.inner.connect();
  ping = (ms: number) => this.inner.ping(ms);
  disconnect = (ms?: number) => this.inner.disconnect(ms);
  publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]> {
    if (this.armed && records.some((r) => r.value.includes('"poison":true')))
      return Promise.reject(new PoisonError('refused by the test broker'));
    return this.inner.publish(records, signal);
  }
}

describe('WAL relay mode (private PostgreSQL with wal_level=logical + Kafka)', () => {
  let pg: PrivatePostgres;
  const scenes: WalScene[] = [];
  const scene = async (prefix: string) => {
    const s = await WalScene.create(pg, prefix);
    scenes.push(s);
    return s;
  };

  beforeAll(async () => {
    pg = await startLogicalPostgres();
  });
  afterAll(async () => {
    for (const s of scenes) await s.close();
    pg?.destroy();
  });

  it('Given committed outbox inserts, when a WAL relay reads the slot, then Kafka has every event in order per key with the exact payload, the events read from the slot leave their rows untouched, the slot confirms past them, and a relay started later loses nothing', async () => {
    const s = await scene('wal_delivery');
    const topic = uniqueTopic('wal-delivery');
    await createTopics([topic]);
    // Pending before the slot exists: set aside when the relay creates it, published apart.
    await s.producer.writeMany(100, 10, 50);
    const relay = await s.start({ routing: { defaultTopic: topic }, tuning: { batchSize: 200 } });
    await waitFor('reading', () => WalScene.wal(relay).state.role === 'active');
    await s.producer.writeMany(1400, 30, 100);
    const [odd] = await s.producer.write([
      {
        aggregateId: 'k1',
        rawPayload: '{"b" : 1,   "a":[2, 3]}',
        occurredAt: '2026-03-04 07:06:07.891999+02',
      },
    ]);

    const distinct = (n: number) => (r: { headers: Record<string, string | undefined> }[]) =>
      new Set(r.map((x) => x.headers.event_id)).size >= n;
    const records = await consumeUntil([topic], distinct(1501), { timeoutMs: 60_000 });
    const report = checkDelivery(records, s.producer.written);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    const oddRecord = records.find((r) => r.headers.event_id === odd)!;
    expect(oddRecord.value).toBe('{"b" : 1,   "a":[2, 3]}');
    expect(oddRecord.headers.occurred_at).toBe('2026-03-04T05:06:07.891Z');
    const touched = await s.pool.query<{ id: string }>(
      `SELECT id FROM "${s.schema}".outbox WHERE published_at IS NOT NULL OR attempts > 0 OR parked_at IS NOT NULL`,
    );
    expect(touched.rows.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    const {
      rows: [written],
    } = await s.pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    await waitFor('slot confirmed past the events', async () => {
      const {
        rows: [r],
      } = await s.pool.query<{ past: boolean }>(
        `SELECT confirmed_flush_lsn >= $1::pg_lsn AS past FROM pg_replication_slots WHERE slot_name = $2`,
        [written!.lsn, `nest_outbox_${s.schema}_outbox`],
      );
      return r!.past;
    });

    await s.stop(relay);
    await s.producer.writeMany(300, 30, 50);
    await s.start({ routing: { defaultTopic: topic } });
    const all = await consumeUntil([topic], distinct(1801), { timeoutMs: 60_000 });
    const again = checkDelivery(all, s.producer.written);
    expect(again.missing).toEqual([]);
    expect(again.orderViolations).toEqual([]);
  }, 120_000);

  it('Given a role without REPLICATION, when a WAL relay starts, then it fails with WalModeUnavailableError saying which right to grant', async () => {
    const s = await scene('wal_rights');
    await s.pool.query(
      `CREATE ROLE wal_norep LOGIN; GRANT ALL ON SCHEMA "${s.schema}" TO wal_norep`,
    );
    const url = s.pg.url.replace('postgres@', 'wal_norep@');
    await expect(s.start({ connection: url })).rejects.toMatchObject({
      name: 'WalModeUnavailableError',
      message: expect.stringMatching(/REPLICATION.*ALTER ROLE/),
    });
  });

  it('Given a permanent publish failure, when a WAL relay reads it, then that event is parked and only the later events of its aggregate are held; once an operator retries it, they are published in order and let go', async () => {
    const s = await scene('wal_park');
    const topic = uniqueTopic('wal-park');
    await createTopics([topic]);
    const publisher = new PoisonPublisher();
    const relay = await s.start({
      routing: { defaultTopic: topic },
      tuning: {
        publisher,
        classifyError: (error) => (error instanceof PoisonError ? 'permanent' : undefined),
      },
    });
    await s.producer.write([{ aggregateId: 'p1' }, { aggregateId: 'ok1' }]);
    const [poison] = await s.producer.write([{ aggregateId: 'p1', payload: { poison: true } }]);
    await s.producer.write([{ aggregateId: 'p1' }, { aggregateId: 'ok1' }, { aggregateId: 'p1' }]);
    await s.producer.write([{ aggregateId: 'ok2' }]);

    const seen = (r: { key: string | null; headers: Record<string, string | undefined> }[]) =>
      [...new Set(r.map((x) => `${x.key}:${x.headers.aggregate_version}`))].sort();
    const before = await consumeUntil([topic], (r) => seen(r).length >= 4, { timeoutMs: 30_000 });
    expect(seen(before)).toEqual(['ok1:1', 'ok1:2', 'ok2:1', 'p1:1']);
    const operator = relay.get(RelayOperatorService);
    await waitFor('parked', async () => (await operator.listParked()).length === 1);
    const [parked] = await operator.listParked();
    expect(parked).toMatchObject({ eventId: poison, aggregateId: 'p1', waiting: 2 });
    expect(parked!.parkedReason).toMatch(/^permanent: /);
    const aside = () =>
      s.pool
        .query<{ id: string }>(`SELECT id::text FROM "${s.schema}".outbox_relay_aside`)
        .then((r) => r.rows.length);
    expect(await aside()).toBe(3);

    // Events of the held aggregate committed while it waits are held too.
    await s.producer.write([{ aggregateId: 'p1' }]);
    await waitFor('the new event held', async () => (await aside()) === 4);
    publisher.armed = false;
    expect(await operator.retry(poison!, { actor: 'test', reason: 'broker fixed' })).toMatchObject({
      outcome: 'retried',
    });
    await waitFor('released events let go', async () => (await aside()) === 0);
    const after = await consumeUntil(
      [topic],
      (r) => r.some((x) => x.key === 'p1' && x.headers.aggregate_version === '5'),
      { timeoutMs: 30_000 },
    );
    const p1 = after.filter((r) => r.key === 'p1').map((r) => Number(r.headers.aggregate_version));
    expect(p1).toEqual([1, 2, 3, 4, 5]);
    const { rows } = await s.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${s.schema}".outbox WHERE aggregate_id = 'p1' AND aggregate_version >= 2 AND published_at IS NOT NULL`,
    );
    expect(rows[0]!.n).toBe(4);

    // After the release, the aggregate's new events flow straight from the slot again.
    await s.producer.write([{ aggregateId: 'p1' }]);
    const last = await consumeUntil(
      [topic],
      (r) => r.some((x) => x.key === 'p1' && x.headers.aggregate_version === '6'),
      { timeoutMs: 30_000 },
    );
    expect(checkDelivery(last, s.producer.written).orderViolations).toEqual([]);
  }, 90_000);

  it('Given two WAL relays, when the active one loses its connection and dies, then the standby takes the slot over within seconds and every event reaches Kafka in order per key', async () => {
    const s = await scene('wal_takeover');
    const topic = uniqueTopic('wal-takeover');
    await createTopics([topic]);
    const options = { routing: { defaultTopic: topic }, tuning: { batchSize: 50 } };
    const a = await s.start(options);
    const b = await s.start(options);
    await waitFor('one reader', async () => (await s.slot())?.pid != null);
    const roles = [a, b].map((m) => WalScene.wal(m).state.role);
    expect(roles.sort()).toEqual(['active', 'standby']);
    const [active, standby] = WalScene.wal(a).state.role === 'active' ? [a, b] : [b, a];

    let writing = true;
    const writer = (async () => {
      while (writing) await s.producer.writeMany(20, 10, 20);
    })();
    await waitFor('some written', () => s.producer.written.length >= 200);
    const { pid } = (await s.slot())!;
    // The active reader dies: its connection is cut and it never comes back.
    await Promise.all([s.pool.query('SELECT pg_terminate_backend($1)', [pid]), s.stop(active)]);
    const t0 = Date.now();
    await waitFor('standby reads', () => WalScene.wal(standby).state.role === 'active', {
      timeoutMs: 15_000,
    });
    const takeoverMs = Date.now() - t0;
    await waitFor('more written', () => s.producer.written.length >= 600);
    writing = false;
    await writer;
    const total = s.producer.written.length;
    const records = await consumeUntil(
      [topic],
      (r) => new Set(r.map((x) => x.headers.event_id)).size >= total,
      { timeoutMs: 60_000 },
    );
    const report = checkDelivery(records, s.producer.written);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    expect(takeoverMs).toBeLessThan(15_000);
  }, 90_000);

  it('Given an idle outbox while other databases write, when the heartbeat runs, then the slot keeps moving and health and metrics report the slot and its lag', async () => {
    const s = await scene('wal_idle');
    const relay = await s.start({ routing: { defaultTopic: uniqueTopic('wal-idle') } });
    await waitFor('reading', () => WalScene.wal(relay).state.role === 'active');
    const start = (await s.slot())!.confirmed;
    await s.pool.query('CREATE TABLE IF NOT EXISTS wal_noise (x int)');
    await s.pool.query('INSERT INTO wal_noise SELECT generate_series(1, 20000)');
    const {
      rows: [now],
    } = await s.pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    await waitFor(
      'slot moved past the noise',
      async () => {
        const {
          rows: [r],
        } = await s.pool.query<{ past: boolean }>('SELECT $1::pg_lsn >= $2::pg_lsn AS past', [
          (await s.slot())!.confirmed,
          now!.lsn,
        ]);
        return r!.past;
      },
      { timeoutMs: 15_000 },
    );
    expect((await s.slot())!.confirmed).not.toBe(start);
    const health = (await relay.get(RelayHealthIndicator).isHealthy('relay')).relay;
    expect(health).toMatchObject({ status: 'up', running: true, wal: { role: 'active' } });
    await waitFor('lag sampled', () => WalScene.wal(relay).state.lagBytes !== null);
    expect(WalScene.wal(relay).state.lagBytes).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
