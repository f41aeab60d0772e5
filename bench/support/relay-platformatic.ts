import { Producer, stringSerializers } from '@platformatic/kafka';
import type { Producer as KafkajsProducer, RecordMetadata } from 'kafkajs';

/** The raw Kafka loop's producer on `@platformatic/kafka`. */
export interface PlatformaticRawProducer extends Pick<KafkajsProducer, 'sendBatch'> {
  close(): Promise<void>;
}

/**
 * A `@platformatic/kafka` producer as plain code makes one (no idempotence, the client's own
 * partitioner), behind the `sendBatch` that the raw Kafka loop (`drainRawKafka`) calls: the
 * same loop, the other client.
 */
export function platformaticRawProducer(brokers: string[]): PlatformaticRawProducer {
  const producer = new Producer({
    clientId: 'bench-raw-platformatic',
    bootstrapBrokers: brokers,
    serializers: stringSerializers,
  });
  return {
    async sendBatch({ acks, topicMessages = [] }) {
      await producer.send({
        acks,
        messages: topicMessages.flatMap(({ topic, messages }) =>
          messages.map((m) => ({
            topic,
            key: m.key as string,
            value: m.value as string,
            ...(m.headers ? { headers: m.headers as Record<string, string> } : {}),
          })),
        ),
      });
      return [] as RecordMetadata[];
    },
    close: () => producer.close(),
  };
}
