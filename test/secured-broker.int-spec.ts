import type { INestApplication, LoggerService } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { TerminusModule } from '@nestjs/terminus';
import { InboxHealthIndicator } from '@nest-outbox/inbox/health';
import { RelayModule, type RelayModuleOptions } from '@nest-outbox/relay';
import { RelayHealthIndicator } from '@nest-outbox/relay/health';
import {
  createTopics,
  startSecuredKafka,
  testKafka,
  uniqueTopic,
  waitFor,
  type ScramUser,
  type SecuredKafka,
} from '@test/support';
import { logLevel, type KafkaConfig } from 'kafkajs';
import { committedOffsets } from '../libs/inbox/test/inbox-test.kafka';
import { createInboxApp, effectsDdl, startInboxApp } from '../libs/inbox/test/inbox-test.app';
import { RelayScene } from '../libs/relay/test/relay-test.fixture';

/** Every line any logger of the file writes, at every level (kafkajs' debug lines included). */
class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  private add =
    (level: string) =>
    (...parts: unknown[]) =>
      void this.lines.push(
        [level, ...parts.map((p) => (p instanceof Error ? p.stack : String(p)))].join(' '),
      );
  log = this.add('log');
  error = this.add('error');
  warn = this.add('warn');
  debug = this.add('debug');
  verbose = this.add('verbose');
  fatal = this.add('fatal');
}

describe('Relay and inbox on a SASL_SSL broker with SCRAM-SHA-512 users (private broker, certificates made by the test)', () => {
  let kafka: SecuredKafka;
  let scene: RelayScene;
  const logs = new CapturingLogger();
  const relays: TestingModule[] = [];
  const apps: INestApplication[] = [];
  const topic = uniqueTopic('secured');

  beforeAll(async () => {
    kafka = await startSecuredKafka();
    await createTopics([topic], kafka.plaintextBrokers);
    scene = await RelayScene.create('secured', () => kafka.brokers);
    await scene.schema.pool.query(effectsDdl(scene.schema.name));
  }, 300_000);

  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    for (const relay of relays) await relay.close().catch(() => undefined);
    await scene?.close();
    await kafka?.destroy();
  });

  /** A client config of `user` that logs everything kafkajs says (debug included). */
  const client = (user: ScramUser, ca?: string): KafkaConfig => ({
    ...kafka.clientConfig(user, ca),
    clientId: 'secured-test',
    logLevel: logLevel.DEBUG,
    connectionTimeout: 3000,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 500 },
  });

  async function startRelay(config: KafkaConfig): Promise<TestingModule> {
    const options: RelayModuleOptions = scene.options({
      kafka: config,
      routing: { defaultTopic: topic },
    });
    const moduleRef = await Test.createTestingModule({
      imports: [TerminusModule, RelayModule.forRoot(options)],
      providers: [RelayHealthIndicator],
    }).compile();
    moduleRef.useLogger(logs);
    relays.push(moduleRef);
    await moduleRef.init();
    return moduleRef;
  }

  const inboxOptions = (config: KafkaConfig, groupId: string) => ({
    schema: scene.schema.name,
    topics: [topic],
    groupId,
    consumer: 'projection',
    brokers: kafka.brokers,
    kafka: config,
    logger: logs,
  });

  it('Given SCRAM users and a CA the clients trust, when the relay publishes and the inbox consumes (InboxKafkaServer), then every event is applied once and the offsets are committed over SASL_SSL', async () => {
    await scene.producer.writeMany(60, 6, 20);
    const relay = await startRelay(client(kafka.users.relay));
    await waitFor('relay drained', async () => (await scene.pending()) === 0, {
      timeoutMs: 120_000,
    });
    const relayHealth = await relay.get(RelayHealthIndicator).isHealthy('relay');
    expect(relayHealth.relay.status).toBe('up');

    const groupId = uniqueTopic('secured');
    const app = await startInboxApp(inboxOptions(client(kafka.users.inbox), groupId));
    apps.push(app);
    const { pool, name } = scene.schema;
    const effects = async () => {
      const { rows } = await pool.query<{ n: number; d: number }>(
        `SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS d FROM "${name}".effects WHERE consumer = $1`,
        ['projection'],
      );
      return rows[0]!;
    };
    await waitFor('every event applied', async () => (await effects()).d === 60, {
      timeoutMs: 120_000,
    });
    expect(await effects()).toEqual({ n: 60, d: 60 });
    // Offsets read over the plaintext listener: the group committed every partition's end.
    const admin = testKafka(kafka.plaintextBrokers).admin();
    await admin.connect();
    try {
      const ends = new Map(
        (await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]),
      );
      await waitFor('offsets committed', async () => {
        const committed = await committedOffsets(admin, groupId, topic);
        return [...ends].every(([p, high]) => committed.get(p) === high);
      });
    } finally {
      await admin.disconnect();
    }
    expect(app.get(InboxHealthIndicator).isHealthy('inbox').inbox.status).toBe('up');
    await relay.close(); // the cases below publish nothing: no relay of good credentials runs
  });

  it.each([
    [
      'a wrong password',
      /SASL SCRAM SHA512 authentication failed/,
      () => client({ username: 'relay', password: 'not-the-password' }),
    ],
    [
      'an untrusted certificate',
      /self-signed certificate in certificate chain/,
      () => client(kafka.users.relay, kafka.otherCa),
    ],
  ])(
    'Given %s, when the relay runs, then its health is down with the reason logged and no event is parked or published',
    async (_, reason, config) => {
      await scene.producer.writeMany(10, 2, 10, 'bad');
      const from = logs.lines.length;
      const relay = await startRelay(config());
      const health = relay.get(RelayHealthIndicator);
      const down = await waitFor('relay health down', async () => {
        const result = await health.isHealthy('relay', { brokerTimeoutMs: 3000 });
        return result.relay.status === 'down' ? result : undefined;
      });
      expect(down.relay).toMatchObject({ broker: 'down' });
      // Said at warn or error level, not only in kafkajs' debug lines.
      await waitFor('the reason logged', () =>
        logs.lines.slice(from).some((l) => /^(warn|error) /.test(l) && reason.test(l)),
      );
      await waitFor('a failed publish recorded', async () => {
        const { rows: failed } = await scene.schema.pool.query(
          `SELECT 1 FROM "${scene.schema.name}".outbox WHERE aggregate_id LIKE 'bad%' AND last_error IS NOT NULL`,
        );
        return failed.length > 0;
      });
      const { rows } = await scene.schema.pool.query<{ parked: number; published: number }>(
        `SELECT count(*) FILTER (WHERE parked_at IS NOT NULL)::int AS parked,
                count(*) FILTER (WHERE published_at IS NOT NULL)::int AS published
           FROM "${scene.schema.name}".outbox WHERE aggregate_id LIKE 'bad%'`,
      );
      expect(rows[0]).toEqual({ parked: 0, published: 0 });
      await relay.close();
    },
  );

  it.each([
    [
      'a wrong password',
      /SASL SCRAM SHA512 authentication failed/,
      () => client({ username: 'inbox', password: 'nope' }),
    ],
    [
      'an untrusted certificate',
      /self-signed certificate in certificate chain/,
      () => client(kafka.users.inbox, kafka.otherCa),
    ],
  ])(
    'Given %s, when the inbox starts its consumer, then the start fails with that reason and health is down',
    async (_, reason, config) => {
      const app = await createInboxApp(inboxOptions(config(), uniqueTopic('secured-bad')));
      apps.push(app);
      await app.init();
      const error = await app.startAllMicroservices().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(reason);
      expect(app.get(InboxHealthIndicator).isHealthy('inbox').inbox.status).toBe('down');
    },
  );

  it('Given every case above, then no secret appears in any log line or recorded error', async () => {
    expect(logs.lines.length).toBeGreaterThan(0);
    const { rows } = await scene.schema.pool.query<{ e: string | null }>(
      `SELECT last_error AS e FROM "${scene.schema.name}".outbox WHERE last_error IS NOT NULL`,
    );
    const texts = [...logs.lines, ...rows.map((r) => r.e ?? '')];
    for (const secret of [...kafka.secrets, 'not-the-password', 'nope'])
      expect(texts.filter((t) => t.includes(secret))).toEqual([]);
  });
});
