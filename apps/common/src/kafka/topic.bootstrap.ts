import { Kafka, logLevel } from 'kafkajs';

/**
 * Creates the topics a sample service writes to or reads from when they are missing (the
 * broker does not auto-create topics). Idempotent; a topic that exists is left alone.
 */
export async function ensureTopics(
  brokers: string[],
  topics: readonly string[],
  numPartitions: number,
): Promise<void> {
  const admin = new Kafka({
    clientId: 'sample-topic-bootstrap',
    brokers,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length === 0) return;
    await admin
      .createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({ topic, numPartitions, replicationFactor: 1 })),
      })
      .catch((error: unknown) => {
        // Another instance may have created it in the meantime.
        if ((error as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw error;
      });
  } finally {
    await admin.disconnect();
  }
}
