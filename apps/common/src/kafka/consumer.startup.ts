import { Logger, type INestApplication } from '@nestjs/common';
import type { ServerKafka } from '@nestjs/microservices';
import { retryDelayMs } from '../nest/startup-retry';
import { describeErrorWithoutValues } from '../observability/value-free-error';
import { ensureTopics } from './topic.bootstrap';

/** What `connectConsumerInBackground` needs besides the app and its Kafka server. */
export interface ConsumerStartup {
  readonly brokers: string[];
  /** Topics to create first when missing (empty: none). */
  readonly createTopics: readonly string[];
  readonly topicPartitions: number;
}

/**
 * Starts the app's Kafka microservice without waiting for the broker: tries at once, then
 * again with backoff (0.5 s doubling to 10 s, jittered) for as long as the process lives,
 * like the relay. The HTTP side is already up meanwhile, and `/health` answers 503 (no
 * consumer running) until the consumer runs; the inbox attaches it then. A service started while Kafka is down stays up.
 * Stops trying when the process receives SIGTERM or SIGINT.
 */
export function connectConsumerInBackground(
  app: INestApplication,
  server: ServerKafka,
  startup: ConsumerStartup,
): Promise<void> {
  const logger = new Logger('KafkaConsumerStartup');
  let failures = 0;
  let stopping = false;
  const stop = () => (stopping = true);
  process.once('SIGTERM', stop).once('SIGINT', stop);
  const attempt = async (): Promise<void> => {
    if (startup.createTopics.length > 0)
      await ensureTopics(startup.brokers, startup.createTopics, startup.topicPartitions);
    await app.startAllMicroservices();
  };
  return (async () => {
    while (!stopping) {
      try {
        await attempt();
        if (failures > 0) logger.log(`Kafka consumer running after ${failures} failed start(s)`);
        return;
      } catch (error) {
        // A half-started server (client, consumer, producer) is closed before the next try.
        await server.close().catch(() => undefined);
        const delay = retryDelayMs(++failures, 10_000);
        const label = describeErrorWithoutValues(error);
        logger.warn(`Kafka consumer start failed (${label}); retrying in ${delay} ms`);
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
      }
    }
  })();
}
