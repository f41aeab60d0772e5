import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  acquireFaultSlot,
  createTopics,
  DATABASE_URL,
  freePort,
  startPrivateKafka,
  uniqueTopic,
  waitFor,
  type PrivateKafka,
} from '@test/support';
import { Pool } from 'pg';
import { ChaosProcess } from '../../scripts/chaos/chaos-process';
import { ENTRIES } from '../../scripts/sample-system';

/**
 * Found by the chaos run (seed 13200, round 2): the shipping service, restarted while its
 * broker was down, exited after kafkajs' own connection retries (its Nest start, unlike the
 * other sample apps', was not retried). A consumer started during a broker outage must come
 * up when the broker is back.
 */
describe('The shipping service started during a broker outage (private broker)', () => {
  let kafka: PrivateKafka;
  let release: (() => void) | undefined;
  let app: ChaosProcess | undefined;
  const schema = `faults_startup_${Date.now()}`;
  const db = new Pool({ connectionString: DATABASE_URL, max: 2 });

  beforeAll(async () => {
    release = await acquireFaultSlot();
    kafka = await startPrivateKafka({ heapMb: 256 });
  }, 1_200_000);

  afterAll(async () => {
    await app?.stop(5000);
    app?.close();
    await kafka?.destroy();
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.end();
    release?.();
  }, 120_000);

  it('Given its topics and no broker answering, when the shipping service starts, then it stays up instead of exiting, retries the start of its Kafka consumer, and serves once the broker is back', async () => {
    const [orders, shipments] = [uniqueTopic('faults-startup-o'), uniqueTopic('faults-startup-s')];
    await createTopics(
      [
        { topic: orders, numPartitions: 3 },
        { topic: shipments, numPartitions: 3 },
      ],
      kafka.brokers,
    );
    await kafka.stop();
    const port = await freePort();
    const logDir = mkdtempSync(join(tmpdir(), 'faults-startup-'));
    app = new ChaosProcess(
      'shipping-service',
      ENTRIES.shipping,
      {
        DATABASE_URL,
        KAFKA_BROKERS: kafka.brokers.join(','),
        KAFKA_CREATE_TOPICS: 'false',
        PORT: String(port),
        SHIPPING_SCHEMA: schema,
        ORDER_EVENTS_TOPIC: orders,
        SHIPMENT_EVENTS_TOPIC: shipments,
        CONSUMER_GROUP: uniqueTopic('faults-startup-g'),
        CONSUMER_SESSION_TIMEOUT_MS: '6000',
        STARTUP_RETRY_MS: '600000',
      },
      port,
      logDir,
    );
    app.start();
    const running = app;
    const log = join(logDir, 'shipping-service.log');
    // Past kafkajs' own retries (they end within seconds): the consumer's start is retried, twice.
    const state = await waitFor(
      'two retried start-up attempts (or an exit)',
      () => {
        if (!running.running) return 'exited';
        // The whole log (the kept tail is too short: kafkajs logs each failed connection).
        const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
        // The service is up (HTTP first) and retries its Kafka consumer's start in the background.
        const retries = text.match(/Kafka consumer start failed \(KafkaJS[^)]*\); retrying in/g);
        return (retries?.length ?? 0) >= 2 ? 'retrying' : false;
      },
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    expect({ state, exits: running.unexpectedExits }).toEqual({ state: 'retrying', exits: [] });
    await kafka.start();
    await running.waitHealthy(300_000);
    expect(running.unexpectedExits).toEqual([]);
  }, 900_000);
});
