import { outboxSchemaSql } from '@nest-outbox/outbox';
import { Global, Module, type Provider } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  DATABASE_URL,
  KAFKA_BROKERS,
  createTestSchema,
  createTopics,
  spawnTs,
  type TestSchema,
  type TsChild,
} from '@test/support';
import { logLevel, type ITopicConfig } from 'kafkajs';
import type { RelayModuleOptions } from '../src/options/relay-options.interface';
import { RelayModule } from '../src/relay.module';
import { RelayHealthIndicator } from '@nest-outbox/relay/health';
import { TerminusModule } from '@nestjs/terminus';
import { relaySchemaSql } from '../src/schema/relay-schema.sql';
import { TestProducer } from './test-producer';
import { withTestHooks, type TestHooks } from './test-hooks';

export { checkDelivery } from './delivery.check';
export { TestProducer, type TestEvent } from './test-producer';

/** A relay's options in a test: `RelayModuleOptions` and the test's hooks into it. */
export type TestRelayOptions = RelayModuleOptions & { readonly hooks?: TestHooks };

/** Environment of a relay child process beyond its options (see relay-child.ts). */
export interface RelayChildEnv {
  RELAY_FAULT?: 'after-claim' | 'before-send' | 'after-send' | 'during-mark';
  RELAY_FAULT_BATCH?: string;
  RELAY_FAULT_EVENT?: string;
  RELAY_PUBLISHER?: 'null';
  RELAY_PUBLISH_DELAY_MS?: string;
  /** Packages the child cannot resolve (runs `relay-child.without-peers.ts`). */
  BLOCK_MODULES?: string;
}

/**
 * One outbox in a schema of its own, its producer, and the relays a test starts on it (in
 * process or as child processes). `close()` stops them and drops the schema.
 */
export class RelayScene {
  readonly producer: TestProducer;
  private readonly modules: TestingModule[] = [];
  private readonly children: TsChild[] = [];
  private closed = false;

  constructor(
    readonly schema: TestSchema,
    private readonly brokers: () => string[],
  ) {
    this.producer = new TestProducer(schema.pool, schema.name);
  }

  /** Creates the schema with the outbox table and the relay's objects. */
  static async create(prefix: string, brokers: () => string[]): Promise<RelayScene> {
    const schema = await createTestSchema(prefix);
    const name = { schema: schema.name, table: 'outbox' };
    for (const s of [...outboxSchemaSql(name), ...relaySchemaSql(name)]) await schema.pool.query(s);
    return new RelayScene(schema, brokers);
  }

  /** Options of a relay on this outbox: short lease, fast polling, no housekeeping. */
  options(overrides: Partial<TestRelayOptions> = {}): TestRelayOptions {
    return {
      connection: DATABASE_URL,
      kafka: { clientId: 'relay-test', brokers: this.brokers(), logLevel: logLevel.NOTHING },
      routing: { defaultTopic: 'unused-default' },
      retention: false,
      ...overrides,
      schema: this.schema.name,
      tuning: {
        table: 'outbox',
        leaseMs: 5000,
        publishTimeoutMs: 3000,
        polling: { minMs: 20, maxMs: 200 },
        retry: { baseDelayMs: 100, maxDelayMs: 1000 },
        ...overrides.tuning,
      },
    };
  }

  /** Boots a RelayModule in a Nest testing module (its loop starts); closed by `close()`. */
  async start(
    overrides: Partial<TestRelayOptions> = {},
    providers: Provider[] = [],
  ): Promise<TestingModule> {
    const moduleRef = await startRelay(this.options(overrides), providers);
    this.modules.push(moduleRef);
    return moduleRef;
  }

  /**
   * Starts libs/relay/test/relay-child.ts on this outbox, waiting until its loop runs (not for
   * a child with a fault, which may die first); killed by `close()`.
   */
  async spawn(
    overrides: Partial<RelayModuleOptions> = {},
    env: RelayChildEnv = {},
  ): Promise<TsChild> {
    const options = this.options({
      ...overrides,
      tuning: { batchSize: 100, leaseMs: 2000, publishTimeoutMs: 1000, ...overrides.tuning },
    });
    const entry = env.BLOCK_MODULES ? 'relay-child.without-peers.ts' : 'relay-child.ts';
    const child = spawnTs(`libs/relay/test/${entry}`, {
      RELAY_TEST_OPTIONS: JSON.stringify(options),
      ...env,
    });
    this.children.push(child);
    if (!env.RELAY_FAULT) await child.waitForOutput('RELAY READY', 60_000);
    return child;
  }

  /** Rows still pending in the outbox. */
  async pending(): Promise<number> {
    const { rows } = await this.schema.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${this.schema.name}".outbox WHERE published_at IS NULL AND skipped_at IS NULL`,
    );
    return rows[0]!.n;
  }

  /** Closes one relay started by `start()`. */
  async stop(moduleRef: TestingModule): Promise<void> {
    const at = this.modules.indexOf(moduleRef);
    if (at >= 0) this.modules.splice(at, 1);
    await moduleRef.close();
  }

  /** Closes every relay started here and kills the children still running. */
  async stopAll(): Promise<void> {
    for (const moduleRef of this.modules.splice(0)) await moduleRef.close().catch(() => undefined);
    for (const child of this.children.splice(0)) await child.kill();
  }

  /** `stopAll()`, then drops the schema. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopAll();
    await this.schema.drop();
  }
}

/** What every relay integration file sets up: a scene, and any further scenes its tests make. */
export interface RelayFixture {
  /** The file's scene (set in beforeAll). */
  readonly scene: RelayScene;
  /** A further scene (a schema of its own), closed in afterAll with the rest. */
  newScene(prefix: string): Promise<RelayScene>;
}

/**
 * Registers the file's beforeAll/afterAll: the file's scene (schema, outbox, producer),
 * its topics, and the closing of every relay, child and schema it made. Call it inside
 * `describe`; read `scene` inside tests (it is set in beforeAll).
 * @param options.brokers where the relays publish (default: the shared test broker); a
 *   function, so that a broker started in an earlier beforeAll can be named
 */
export function useRelayFixture(
  prefix: string,
  options: { topics?: (string | ITopicConfig)[]; brokers?: () => string[] } = {},
): RelayFixture {
  const brokers = options.brokers ?? (() => KAFKA_BROKERS);
  const scenes: RelayScene[] = [];
  beforeAll(async () => {
    scenes.push(await RelayScene.create(prefix, brokers));
    if (options.topics?.length) await createTopics(options.topics, brokers());
  });
  afterAll(async () => {
    for (const scene of scenes.splice(0)) await scene.close();
  });
  return {
    get scene() {
      if (!scenes[0]) throw new Error('useRelayFixture: the scene is set in beforeAll');
      return scenes[0];
    },
    async newScene(scenePrefix) {
      const scene = await RelayScene.create(scenePrefix, brokers);
      scenes.push(scene);
      return scene;
    },
  };
}

/**
 * Boots a RelayModule with `options` in a Nest testing module (bootstrap hooks run), wired
 * with its health indicator as an application does (`TerminusModule` + `RelayHealthIndicator`
 * from `@nest-outbox/relay/health` next to the relay).
 */
export async function startRelay(
  { hooks, ...options }: TestRelayOptions,
  providers: Provider[] = [],
): Promise<TestingModule> {
  @Global()
  @Module({ providers, exports: providers.map((p) => ('provide' in p ? p.provide : p)) })
  class ExtrasModule {}
  const builder = Test.createTestingModule({
    imports: [ExtrasModule, TerminusModule, RelayModule.forRoot(options)],
    providers: [RelayHealthIndicator],
  });
  const moduleRef = await withTestHooks(builder, hooks).compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  return moduleRef;
}
