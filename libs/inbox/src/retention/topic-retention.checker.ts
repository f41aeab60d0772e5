import type { Logger } from '@nestjs/common';
import { errorLabel } from '@nest-outbox/core/internal';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { InboxRetentionTooShortError } from '../errors/inbox-retention-too-short.error';
import type { ResolvedInboxOptions } from '../options/inbox-options.resolver';

/**
 * Checks each topic's `retention.ms` against the inbox retention (which must outlive topic
 * retention plus the replay window): too short refuses to start, or warns with
 * `onTooShort: 'warn'`; an unreadable topic or broker is warned about. @internal
 */
export async function checkTopicRetention(
  options: ResolvedInboxOptions,
  topics: string[],
  logger: Logger,
): Promise<void> {
  if (!options.retention.checkTopics || topics.length === 0 || !options.raw.kafka) return;
  const { keepMs: inboxRetentionMs, replayWindowMs, onTooShort } = options.retention;
  const admin = new Kafka({
    logLevel: logLevel.NOTHING,
    ...options.raw.kafka,
    clientId: `${options.raw.kafka.clientId ?? 'nest-outbox'}-inbox-admin`,
  }).admin();
  try {
    await admin.connect();
  } catch (error) {
    // A consumer started while the broker is down stays up and connects later (with backoff):
    // the check is skipped rather than failing the start-up.
    logger.warn(
      `could not reach Kafka to read the topics' retention.ms (${errorLabel(error)}); retention not checked`,
    );
    return;
  }
  try {
    for (const topic of topics) {
      let retentionMs: number;
      try {
        const described = await admin.describeConfigs({
          includeSynonyms: false,
          resources: [
            { type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] },
          ],
        });
        const value = described.resources[0]?.configEntries.find(
          (e) => e.configName === 'retention.ms',
        )?.configValue;
        retentionMs = Number(value);
        if (value === undefined || !Number.isFinite(retentionMs))
          throw new Error(`no retention.ms in ${JSON.stringify(value)}`);
      } catch (error) {
        logger.warn(
          `could not read retention.ms of topic "${topic}": ${(error as Error).message}; retention not checked`,
        );
        continue;
      }
      const needed = retentionMs < 0 ? Infinity : retentionMs + replayWindowMs;
      if (inboxRetentionMs >= needed) continue;
      const problem = new InboxRetentionTooShortError(
        topic,
        retentionMs,
        inboxRetentionMs,
        replayWindowMs,
      );
      if (onTooShort === 'refuse') throw problem;
      logger.error(`WARNING (accepted by retention.onTooShort='warn'): ${problem.message}`);
    }
  } finally {
    await admin.disconnect();
  }
}
