import { mkdirSync } from 'node:fs';
import { Pool } from 'pg';
import { freePorts, startPrivatePostgres, type PrivatePostgres } from '@test/support';
import { ENTRIES } from '../sample-system';
import { startChaosKafka, type ChaosKafka } from './chaos-kafka';
import { ChaosProcess } from './chaos-process';

/** Names of the run's schemas, topics and group. */
export const CHAOS_NAMES = {
  ordersSchema: 'chaos_orders',
  shippingSchema: 'chaos_shipping',
  orderTopic: 'chaos-orders',
  shipmentTopic: 'chaos-shipments',
  consumerGroup: 'chaos-shipping',
  /** The shipping inbox's consumer name (apps/shipping-service). */
  projection: 'shipping-projection',
} as const;

/** Records larger than this are refused by the order topic: how an event is poisoned. */
export const ORDER_TOPIC_MAX_MESSAGE_BYTES = 65_536;

/** Standalone relays kept ready; a round runs 2 or 3 of them, racing on the orders outbox. */
const RELAY_SLOTS = 3;

/**
 * The sample system under chaos: a private PostgreSQL (never the shared cluster), a private
 * Kafka (single broker or three-node cluster), the order service (no embedded relay), 2-3
 * standalone relays racing on its outbox (with the kill-between-send-and-mark seam), and the
 * shipping service (inbox consumer, plus its own embedded relay).
 */
export class ChaosSystem {
  readonly relays: ChaosProcess[];
  /** Relays that should run this round (the others are stopped). */
  activeRelays = 2;

  private constructor(
    readonly pg: PrivatePostgres,
    readonly kafka: ChaosKafka,
    readonly db: Pool,
    readonly orders: ChaosProcess,
    readonly shipping: ChaosProcess,
    relays: ChaosProcess[],
  ) {
    this.relays = relays;
  }

  static async start(options: { cluster: boolean; logDir: string }): Promise<ChaosSystem> {
    mkdirSync(options.logDir, { recursive: true });
    const pg = await startPrivatePostgres({ settings: { max_connections: '120' } });
    const kafka = await startChaosKafka(options.cluster ? 'cluster' : 'single');
    const n = CHAOS_NAMES;
    await kafka.createTopics([
      {
        topic: n.orderTopic,
        numPartitions: 6,
        configEntries: [
          { name: 'max.message.bytes', value: String(ORDER_TOPIC_MAX_MESSAGE_BYTES) },
        ],
      },
      { topic: n.shipmentTopic, numPartitions: 6 },
    ]);
    const db = new Pool({ connectionString: pg.url, max: 3 });
    db.on('error', () => undefined); // a crashed database breaks idle connections: replaced
    db.on('connect', (client) => client.on('error', () => undefined));
    const common = {
      DATABASE_URL: pg.url,
      KAFKA_BROKERS: kafka.brokers.join(','),
      KAFKA_CREATE_TOPICS: 'false',
      RELAY_LEASE_MS: '4000',
      // A broker restart can take minutes on a loaded machine: a service starting meanwhile
      // waits for it (a service that gives up at start-up is a finding only past this).
      STARTUP_RETRY_MS: '600000',
    };
    // Distinct ports, all chosen at once (two separate free ports may be the same number).
    const ports = await freePorts(2 + RELAY_SLOTS);
    const [ordersPort, shippingPort] = [ports[0]!, ports[1]!];
    const orders = new ChaosProcess(
      'order-service',
      ENTRIES.orders,
      {
        ...common,
        PORT: String(ordersPort),
        ORDERS_SCHEMA: n.ordersSchema,
        ORDER_EVENTS_TOPIC: n.orderTopic,
        RELAY_EMBEDDED: 'false',
        RECONCILE_INTERVAL_MS: '0',
        SHIPPING_URL: `http://127.0.0.1:${shippingPort}`,
      },
      ordersPort,
      options.logDir,
    );
    const shipping = new ChaosProcess(
      'shipping-service',
      ENTRIES.shipping,
      {
        ...common,
        PORT: String(shippingPort),
        SHIPPING_SCHEMA: n.shippingSchema,
        ORDER_EVENTS_TOPIC: n.orderTopic,
        SHIPMENT_EVENTS_TOPIC: n.shipmentTopic,
        CONSUMER_GROUP: n.consumerGroup,
        CONSUMER_SESSION_TIMEOUT_MS: '6000',
      },
      shippingPort,
      options.logDir,
    );
    const relays: ChaosProcess[] = [];
    for (let i = 1; i <= RELAY_SLOTS; i++) {
      const port = ports[1 + i]!;
      relays.push(
        new ChaosProcess(
          `relay-${i}`,
          ENTRIES.faultRelay,
          {
            ...common,
            RELAY_HTTP_PORT: String(port),
            RELAY_ID: `chaos-relay-${i}`,
            OUTBOX_SCHEMA: n.ordersSchema,
            OUTBOX_TABLE: 'outbox',
            RELAY_TOPIC_ROUTES: `order=${n.orderTopic}`,
            RELAY_PUBLISH_TIMEOUT_MS: '2000',
            RELAY_BACKOFF_BASE_MS: '200',
            RELAY_BACKOFF_CAP_MS: '2000',
          },
          port,
          options.logDir,
        ),
      );
    }
    const system = new ChaosSystem(pg, kafka, db, orders, shipping, relays);
    // The order service runs the migrations (its tables, the outbox, the relay's objects).
    orders.start();
    await orders.waitHealthy();
    await system.healAndWait();
    return system;
  }

  /**
   * Database and broker up, every process that should run started (a round does not wait
   * for their health: quiescence at its end is what says they work).
   */
  async heal(): Promise<void> {
    if (!this.pg.running()) this.pg.start();
    await this.kafka.healAll();
    for (const p of this.relays.slice(this.activeRelays)) if (p.running) await p.stop();
    for (const p of [this.orders, this.shipping, ...this.relays.slice(0, this.activeRelays)])
      p.start();
  }

  /** `heal()`, then every process answering /health (a relay only has to answer). */
  async healAndWait(): Promise<void> {
    const relays = this.relays.slice(0, this.activeRelays);
    for (let attempt = 1; ; attempt++) {
      await this.heal();
      try {
        // A relay's /health also says "down" while an event is parked (poison).
        await Promise.all([
          this.orders.waitHealthy(),
          this.shipping.waitHealthy(),
          ...relays.map((r) => r.waitHealthy(600_000, true)),
        ]);
        return;
      } catch (error) {
        // A relay armed to die between send and mark may die while this waits: again.
        const dead = [this.orders, this.shipping, ...relays].some((p) => !p.running);
        if (attempt >= 3 || !dead) throw error;
      }
    }
  }

  /** Unexpected exits of every process so far (each one a finding). */
  unexpectedExits(): string[] {
    return [this.orders, this.shipping, ...this.relays].flatMap((p) => p.unexpectedExits);
  }

  async teardown(): Promise<void> {
    await Promise.all([this.orders, this.shipping, ...this.relays].map((p) => p.stop(5000)));
    for (const p of [this.orders, this.shipping, ...this.relays]) p.close();
    await this.db.end().catch(() => undefined);
    await this.kafka.destroy().catch(() => undefined);
    this.pg.destroy();
  }
}
