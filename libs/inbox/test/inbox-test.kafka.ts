import { testKafka } from '@test/support';
import type { INestApplication } from '@nestjs/common';
import type { Admin, Consumer, Message, Producer } from 'kafkajs';

/** A connected producer and admin for one test file. */
export async function kafkaTools(
  brokers?: string[],
): Promise<{ producer: Producer; admin: Admin; close(): Promise<void> }> {
  const kafka = testKafka(brokers);
  const producer = kafka.producer();
  const admin = kafka.admin();
  await Promise.all([producer.connect(), admin.connect()]);
  return {
    producer,
    admin,
    close: async () => {
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    },
  };
}

/** Sends records without the test-only fields. */
export async function send(
  producer: Producer,
  topic: string,
  records: (Message & { eventId?: string })[],
  partition?: number,
): Promise<void> {
  await producer.send({
    topic,
    messages: records.map(({ key, value, headers }) => ({ key, value, headers, partition })),
  });
}

/** The group's committed offset per partition (-1 when none). */
export async function committedOffsets(
  admin: Admin,
  groupId: string,
  topic: string,
): Promise<Map<number, bigint>> {
  const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return new Map((entry?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
}

/**
 * Counts the group joins of the app's consumer from now on. A join after start-up is a
 * rebalance: the records whose effect committed but whose offset did not yet are delivered
 * again, which the inbox counts as duplicates. On a busy machine that is normal (a late
 * heartbeat), so a test tells "no duplicate beyond the planted ones" from "every extra
 * delivery was absorbed" by this count.
 */
export function watchRejoins(app: INestApplication): () => number {
  const [, consumer] = app.getMicroservices()[0]!.unwrap<[unknown, Consumer, unknown]>();
  let joins = 0;
  consumer.on(consumer.events.GROUP_JOIN, () => (joins += 1));
  return () => joins;
}
