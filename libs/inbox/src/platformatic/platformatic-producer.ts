import type { Producer, ProducerOptions } from '@platformatic/kafka';
import type { PlatformaticKafka } from './platformatic-kafka';

type Bytes = Buffer | string | null | undefined;

/** What the inbox sends through `KafkaContext.getProducer()` (a dead-letter copy). @internal */
export interface SendRecord {
  readonly topic: string;
  readonly messages: readonly {
    readonly key?: Bytes;
    readonly value: Bytes;
    readonly headers?: Readonly<Record<string, Bytes>>;
  }[];
}

const bytes = (b: Bytes) => (typeof b === 'string' ? Buffer.from(b) : (b ?? undefined));

/**
 * The producer of a `PlatformaticInboxServer`'s `KafkaContext`: kafkajs' `send({ topic, messages })`
 * shape on an idempotent `@platformatic/kafka` producer with acks=all, created on first use.
 * @internal
 */
export class PlatformaticContextProducer {
  private producer: Producer<Buffer, Buffer, Buffer, Buffer> | undefined;

  constructor(
    private readonly kafka: PlatformaticKafka,
    private readonly options: ProducerOptions<Buffer, Buffer, Buffer, Buffer>,
  ) {}

  async send(record: SendRecord): Promise<void> {
    this.producer ??= new this.kafka.Producer({ ...this.options, idempotent: true, acks: -1 });
    await this.producer.send({
      messages: record.messages.map((m) => ({
        topic: record.topic,
        key: bytes(m.key),
        value: bytes(m.value) as Buffer,
        headers: new Map(
          Object.entries(m.headers ?? {})
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [Buffer.from(k), bytes(v)!]),
        ),
      })),
    });
  }

  async close(): Promise<void> {
    await this.producer?.close();
  }
}
