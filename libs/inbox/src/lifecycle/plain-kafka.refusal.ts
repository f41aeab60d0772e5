import type { ServerKafka } from '@nestjs/microservices';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { InboxKafkaServer } from '../transport/inbox-kafka.server';

/**
 * Refuses a Kafka server other than `InboxKafkaServer` that serves an inbox handler's topic
 * (its pattern handlers are registered once the application initialises). @internal
 */
export function refusePlainKafka(servers: readonly ServerKafka[], inboxTopics: string[]): void {
  for (const server of servers) {
    if (server instanceof InboxKafkaServer) continue;
    const served = inboxTopics.filter((topic) => server.getHandlers().has(topic));
    if (served.length === 0) continue;
    throw new InboxMisuseError(
      `@InboxHandler/@InboxBatchHandler on topic(s) '${served.join("', '")}' is served by ` +
        `${server.constructor.name}, which the inbox does not run on (stock kafkajs: no snappy, lz4 ` +
        'or zstd, no header cap). Connect the Kafka microservice with InboxKafkaServer from ' +
        "'@nest-outbox/inbox': app.connectMicroservice({ strategy: new InboxKafkaServer({...same " +
        'options...}) }) in place of { transport: Transport.KAFKA, options }.',
    );
  }
}
