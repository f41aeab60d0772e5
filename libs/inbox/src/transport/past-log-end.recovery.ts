import type { Logger } from '@nestjs/common';
import type { Admin, Consumer } from 'kafkajs';
import { errorLabel, logLine } from '@nest-outbox/core/internal';
import type { OutOfRangeFetch } from '../kafkajs/fetch-response.rewriter';

type OffsetsAdmin = Pick<Admin, 'connect' | 'disconnect' | 'fetchTopicOffsets' | 'fetchOffsets'>;

/** The server's client, consumer and group, once it has them. @internal */
export interface RecoveryTarget {
  readonly client: { admin(): OffsetsAdmin } | null;
  readonly consumer: Pick<Consumer, 'seek'> | null;
  readonly groupId: string;
}

/**
 * OffsetOutOfRange past the log's end never resets the group: stock kafkajs commits the default
 * offset (`fromBeginning`: the partition's start), losing the group's place. Here a fetch past
 * the log's end reads again from the offset the group committed, or from the log end when that
 * one is past it too (a commit of an older version); an offset before the log's start (records
 * deleted by retention) keeps kafkajs' own reset. kafkajs' public API only: the admin's offsets
 * and `consumer.seek`, which commits nothing under the inbox's `autoCommit: false`. @internal
 */
export class PastLogEndRecovery {
  private admin: Promise<OffsetsAdmin> | undefined;

  constructor(
    private readonly target: () => RecoveryTarget,
    private readonly logger: Logger,
  ) {}

  /** An `OutOfRangeHandler`: `true` for each partition this moved (its error is cleared). */
  readonly handle = async (fetches: readonly OutOfRangeFetch[]): Promise<boolean[]> => {
    const { client, consumer, groupId } = this.target();
    if (!client || !consumer) return fetches.map(() => false);
    try {
      const connecting = (this.admin ??= connectAdmin(client));
      const admin = await connecting.catch((error: unknown) => {
        if (this.admin === connecting) this.admin = undefined;
        throw error;
      });
      return await Promise.all(fetches.map((f) => this.recover(admin, consumer, groupId, f)));
    } catch (error) {
      // The next fetch meets the same error and tries again; the group's offset stays.
      this.logger.warn(logLine('OffsetOutOfRange not resolved', { error: errorLabel(error) }));
      return fetches.map(() => true);
    }
  };

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await (await admin?.catch(() => undefined))?.disconnect();
  }

  private async recover(
    admin: OffsetsAdmin,
    consumer: Pick<Consumer, 'seek'>,
    groupId: string,
    { topic, partition, fetchOffset }: OutOfRangeFetch,
  ): Promise<boolean> {
    const ends = await admin.fetchTopicOffsets(topic);
    const end = ends.find((p) => p.partition === partition)?.high;
    if (end === undefined || fetchOffset <= BigInt(end)) return false;
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const committed = offsets?.partitions.find((p) => p.partition === partition)?.offset;
    const from =
      committed !== undefined && BigInt(committed) >= 0n && BigInt(committed) <= BigInt(end)
        ? committed
        : end;
    this.logger.warn(
      logLine('Offset past the log end: fetching again from the committed offset', {
        topic,
        partition,
        fetch_offset: String(fetchOffset),
        log_end: end,
        from,
      }),
    );
    consumer.seek({ topic, partition, offset: from });
    return true;
  }
}

async function connectAdmin(client: { admin(): OffsetsAdmin }): Promise<OffsetsAdmin> {
  const admin = client.admin();
  await admin.connect();
  return admin;
}
