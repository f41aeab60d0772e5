import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import {
  connectionsApiChannel,
  instancesChannel,
  type Base,
  type Connection,
  type CreationEvent,
} from '@platformatic/kafka';
import { KAFKA_BROKERS, testKafka, waitFor } from '@test/support';
import { logLevel, type IHeaders } from 'kafkajs';
import { PlatformaticKafkaPublisher } from '../src/platformatic/platformatic-kafka.publisher';
import type { RelayCompression } from '../src/publisher/compression';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import type { RelayPublisher } from '../src/publisher/relay-publisher.interface';

const PRODUCE = 0;

/**
 * One adapter of the publisher port under the contract, with the means to break its
 * connections: `onProduce` runs right after a Produce request was written to the broker;
 * `cutNextProduce` closes that connection before its answer is read (`cuts` counts those);
 * `openSockets` counts the adapter's sockets still open.
 */
export interface ContractClient {
  readonly publisher: RelayPublisher;
  onProduce(run: () => void): void;
  cutNextProduce(): void;
  cuts(): number;
  openSockets(): number;
  close(): Promise<void>;
}

export interface ContractAdapter {
  readonly name: 'kafkajs' | 'platformatic';
  start(compression?: RelayCompression): Promise<ContractClient>;
}

/** Splits a byte stream into Kafka frames (a 4-byte size, then the frame). */
function frames(each: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const size = 4 + pending.readInt32BE(0);
      each(pending.subarray(0, size));
      pending = pending.subarray(size);
    }
  };
}

/** A loopback proxy that sees each Produce request and can drop the answer to the next one. */
class ProduceTap {
  private readonly live = new Set<Socket>();
  private cut = false;
  cuts = 0;
  onProduce: (() => void) | undefined;

  private constructor(readonly server: Server) {}

  static async start(): Promise<ProduceTap> {
    const taps: ProduceTap[] = [];
    const server = createServer((client) => taps[0]!.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    taps.push(new ProduceTap(server));
    return taps[0]!;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  private accept(client: Socket): void {
    const [host, port] = KAFKA_BROKERS[0]!.split(':');
    const upstream = connect(Number(port), host);
    this.live.add(client);
    const end = () => (this.live.delete(client), client.destroy(), upstream.destroy());
    const dropped = new Set<number>();
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
    client.on(
      'data',
      frames((frame) => {
        upstream.write(frame);
        if (frame.readInt16BE(4) !== PRODUCE) return;
        if (this.cut) dropped.add(frame.readInt32BE(8));
        this.cut = false;
        this.onProduce?.();
      }),
    );
    upstream.on(
      'data',
      frames((frame) => {
        if (!dropped.has(frame.readInt32BE(4))) {
          client.write(frame);
          return;
        }
        this.cuts++;
        end();
      }),
    );
  }

  cutNextProduce(): void {
    this.cut = true;
  }

  openSockets(): number {
    return this.live.size;
  }

  async close(): Promise<void> {
    for (const socket of this.live) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const kafkajs: ContractAdapter = {
  name: 'kafkajs',
  async start(compression) {
    const tap = await ProduceTap.start();
    const publisher = new KafkaPublisher(
      {
        clientId: 'contract-kafkajs',
        brokers: KAFKA_BROKERS,
        logLevel: logLevel.NOTHING,
        // Every connection (the advertised broker's too) through the tap.
        socketFactory: ({ onConnect }) => connect({ host: '127.0.0.1', port: tap.port }, onConnect),
      },
      {},
      { compression },
    );
    return {
      publisher,
      onProduce: (run) => (tap.onProduce = run),
      cutNextProduce: () => tap.cutNextProduce(),
      cuts: () => tap.cuts,
      openSockets: () => tap.openSockets(),
      close: async () => {
        await publisher.disconnect(100);
        await tap.close();
      },
    };
  },
};

const platformatic: ContractAdapter = {
  name: 'platformatic',
  async start(compression) {
    // The diagnostics channels are the process's: other files' clients publish there too, so
    // only the connections of this publisher's clients (by their unique clientId) count.
    const clientId = `contract-platformatic-${randomBytes(4).toString('hex')}`;
    const connections = new Set<Connection>();
    let onProduce: (() => void) | undefined;
    let cut = false;
    let cuts = 0;
    const created = (event: unknown) => {
      const client = (event as CreationEvent<Base>).instance;
      if (client.clientId !== clientId) return;
      client.on('client:broker:connect', ({ connection }) => connections.add(connection));
    };
    const sent = (event: unknown) => {
      const { apiKey, connection } = event as { apiKey: number; connection: Connection };
      if (apiKey !== PRODUCE || !connections.has(connection)) return;
      // The request is in the socket: closing it now loses the broker's answer.
      if (cut) {
        cuts++;
        connection.socket.destroy();
      }
      cut = false;
      onProduce?.();
    };
    // The client's diagnostics channels (its documented instrumentation).
    instancesChannel.subscribe(created);
    connectionsApiChannel.end.subscribe(sent);
    const publisher = new PlatformaticKafkaPublisher(
      { clientId, brokers: KAFKA_BROKERS },
      compression,
    );
    return Promise.resolve({
      publisher,
      onProduce: (run: () => void) => (onProduce = run),
      cutNextProduce: () => (cut = true),
      cuts: () => cuts,
      openSockets: () => [...connections].filter((c) => !c.socket.destroyed).length,
      close: async () => {
        await publisher.disconnect(100);
        instancesChannel.unsubscribe(created);
        connectionsApiChannel.end.unsubscribe(sent);
      },
    });
  },
};

export const CONTRACT_ADAPTERS: readonly ContractAdapter[] = [kafkajs, platformatic];

/** A record read back with its raw bytes. */
export interface RawRecord {
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}

/** Reads `topic` from the start until `count` records arrived (a deadline otherwise). */
export async function readRaw(topic: string, count: number): Promise<RawRecord[]> {
  const consumer = testKafka().consumer({
    groupId: `contract-${topic}`,
    maxWaitTimeInMs: 100,
  });
  const records: RawRecord[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: ({ partition, message }) => {
        const { offset, key, value, headers = {} } = message;
        records.push({ partition, offset, key, value, headers });
        return Promise.resolve();
      },
    });
    await waitFor(`${count} records of ${topic}`, () => records.length >= count, {
      timeoutMs: 60_000,
    });
    return records;
  } finally {
    await consumer.disconnect();
  }
}
