import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { DATABASE_URL, KAFKA_BROKERS } from '../../test/support/env';
import { freePorts } from '../../test/support/free-port';
import { createTopics, testKafka } from '../../test/support/kafka';
import { AppProcess } from './app-process';
import { SampleHttpClient } from './sample-http.client';

/** Entry points of the three sample apps, compiled by `npm run build` (tsc -b) into dist/. */
export const ENTRIES = {
  orders: 'dist/apps/order-service/src/main.js',
  shipping: 'dist/apps/shipping-service/src/main.js',
  relay: 'dist/apps/relay/src/main.js',
  /** `apps/relay` with a SIGKILL after send (`RELAY_KILL_AFTER_SEND_BATCH`), from source. */
  faultRelay: 'scripts/sample-system/fault-relay.entry.ts',
} as const;

/** How to run one sample system. */
export interface SampleSystemOptions {
  /** Short name used in schema, topic and group names (lower case). */
  readonly prefix: string;
  /** @default KAFKA_BROKERS of the shared stack */
  readonly brokers?: string[];
  /**
   * `embedded`: the order service publishes its own outbox; `standalone`: it does not
   * (`RELAY_EMBEDDED=false`) and a separate relay process does; `both`: the two share the
   * outbox (leases share the work).
   * @default 'embedded'
   */
  readonly relay?: 'embedded' | 'standalone' | 'both';
  /** @default 3 */
  readonly partitions?: number;
  /** Lease of every relay (short, so a killed relay's claim is taken over soon). @default 4000 */
  readonly leaseMs?: number;
  readonly ordersEnv?: Record<string, string>;
  readonly shippingEnv?: Record<string, string>;
  readonly relayEnv?: Record<string, string>;
  /** Run the standalone relay from the fault-seam entry (see `ENTRIES.faultRelay`). */
  readonly faultRelay?: boolean;
  /**
   * A .ts entry each app is started through instead of its own, which loads the app's entry
   * from `SAMPLE_ENTRY` after its own set-up (the trace test's OpenTelemetry preload).
   */
  readonly entryWrapper?: string;
}

/** Names one system uses, unique per instance so test files (and a demo) run in parallel. */
export interface SampleNames {
  readonly ordersSchema: string;
  readonly shippingSchema: string;
  readonly orderTopic: string;
  readonly shipmentTopic: string;
  readonly consumerGroup: string;
}

/**
 * The order service, the shipping service and (optionally) a standalone relay, as real
 * child processes on free ports, with their own schemas, topics and consumer group.
 */
export class SampleSystem {
  readonly db = new Pool({ connectionString: DATABASE_URL, max: 4 });
  readonly brokers: string[];
  readonly http: SampleHttpClient;
  private constructor(
    readonly names: SampleNames,
    readonly orders: AppProcess,
    readonly shipping: AppProcess,
    readonly relay: AppProcess | undefined,
    brokers: string[],
    /** Bearer token of `sample-operator` on the standalone relay's operator console. */
    readonly consoleToken: string,
  ) {
    this.brokers = brokers;
    this.http = new SampleHttpClient(orders.url, shipping.url);
  }

  /** Creates the topics and the processes (not started yet). */
  static async create(options: SampleSystemOptions): Promise<SampleSystem> {
    const id = `${options.prefix}_${randomBytes(3).toString('hex')}`;
    const names: SampleNames = {
      ordersSchema: `t_${id}_orders`,
      shippingSchema: `t_${id}_shipping`,
      orderTopic: `${id.replace(/_/g, '-')}-orders`,
      shipmentTopic: `${id.replace(/_/g, '-')}-shipments`,
      consumerGroup: `${id}-shipping`,
    };
    const brokers = options.brokers ?? KAFKA_BROKERS;
    const partitions = options.partitions ?? 3;
    await createTopics(
      [names.orderTopic, names.shipmentTopic].map((topic) => ({
        topic,
        numPartitions: partitions,
      })),
      brokers,
    );
    // Held together until all three are found: one at a time, the OS may hand out the same port twice.
    const [ordersPort, shippingPort, relayPort] = (await freePorts(3)) as [number, number, number];
    const leaseMs = String(options.leaseMs ?? 4000);
    const consoleToken = randomBytes(24).toString('hex');
    const common = {
      DATABASE_URL,
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_CREATE_TOPICS: 'false',
      RELAY_LEASE_MS: leaseMs,
      NO_COLOR: '1',
    };
    const mode = options.relay ?? 'embedded';
    const app = (
      name: string,
      entry: string,
      port: number,
      env: Record<string, string>,
      portVariable?: string,
    ) =>
      options.entryWrapper
        ? new AppProcess(
            name,
            options.entryWrapper,
            port,
            { ...env, SAMPLE_ENTRY: entry, OTEL_SERVICE_NAME: name },
            portVariable,
          )
        : new AppProcess(name, entry, port, env, portVariable);
    const orders = app('order-service', ENTRIES.orders, ordersPort, {
      ...common,
      ORDERS_SCHEMA: names.ordersSchema,
      ORDER_EVENTS_TOPIC: names.orderTopic,
      SHIPPING_URL: `http://127.0.0.1:${shippingPort}`,
      RELAY_EMBEDDED: String(mode !== 'standalone'),
      RECONCILE_INTERVAL_MS: '0',
      ...options.ordersEnv,
    });
    const shipping = app('shipping-service', ENTRIES.shipping, shippingPort, {
      ...common,
      SHIPPING_SCHEMA: names.shippingSchema,
      ORDER_EVENTS_TOPIC: names.orderTopic,
      SHIPMENT_EVENTS_TOPIC: names.shipmentTopic,
      CONSUMER_GROUP: names.consumerGroup,
      // A killed consumer's partitions come back after 6 s (the broker's minimum), not 30 s.
      CONSUMER_SESSION_TIMEOUT_MS: '6000',
      ...options.shippingEnv,
    });
    const relayEnv = {
      ...common,
      OUTBOX_SCHEMA: names.ordersSchema,
      OUTBOX_TABLE: 'outbox',
      RELAY_TOPIC_ROUTES: `order=${names.orderTopic}`,
      RELAY_PUBLISH_TIMEOUT_MS: String(Math.floor(Number(leaseMs) / 2)),
      RELAY_BACKOFF_BASE_MS: '200',
      RELAY_BACKOFF_CAP_MS: '5000',
      // The standalone relay serves its operator console only behind a token.
      RELAY_CONSOLE_TOKENS: `sample-operator:${consoleToken}`,
      ...options.relayEnv,
    };
    const relayEntry = options.faultRelay ? ENTRIES.faultRelay : ENTRIES.relay;
    const relay =
      mode === 'embedded'
        ? undefined
        : app('relay', relayEntry, relayPort, relayEnv, 'RELAY_HTTP_PORT');
    return new SampleSystem(names, orders, shipping, relay, brokers, consoleToken);
  }

  /**
   * Starts the order service first (it runs its migrations), then the relay and the
   * shipping service in parallel; resolves when every `/health` answers 200.
   */
  async start(): Promise<void> {
    await this.orders.start();
    await Promise.all([this.relay?.start(), this.shipping.start()]);
  }

  /** The apps' outputs, for a failing test's or the demo's message. */
  outputs(): string {
    return [this.orders, this.shipping, this.relay]
      .filter((app): app is AppProcess => !!app)
      .map((app) => `===== ${app.name} =====\n${app.output().slice(-4000)}`)
      .join('\n');
  }

  /** Stops every process it started, drops its schemas, deletes its topics (unless told not to). */
  async teardown(options: { deleteTopics?: boolean } = {}): Promise<void> {
    await Promise.all([this.orders.stop(), this.shipping.stop(), this.relay?.stop()]);
    for (const schema of [this.names.ordersSchema, this.names.shippingSchema]) {
      await this.db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    }
    await this.db.end();
    if (options.deleteTopics === false) return;
    const admin = testKafka(this.brokers).admin();
    await admin.connect().catch(() => undefined);
    await admin
      .deleteTopics({ topics: [this.names.orderTopic, this.names.shipmentTopic], timeout: 5000 })
      .catch(() => undefined);
    await admin.deleteGroups([this.names.consumerGroup]).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}
