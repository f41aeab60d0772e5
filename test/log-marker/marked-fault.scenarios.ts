import { randomBytes } from 'node:crypto';
import { uuidv7 } from '@nest-outbox/core';
import { testKafka, waitFor } from '@test/support';
import type { SampleSystem } from '../../scripts/sample-system';

/** A payload marker no log line may ever carry. */
export const MARKER = `PAYLOADMARKER${randomBytes(6).toString('hex')}`;

/** Contract headers of an order event; `overrides` replace or (undefined) drop some. */
function headers(orderId: string, overrides: Record<string, string | undefined> = {}) {
  const all: Record<string, string | undefined> = {
    event_id: uuidv7(),
    event_type: 'order.confirmed',
    schema_version: '1',
    aggregate_type: 'order',
    aggregate_id: orderId,
    aggregate_version: '2',
    occurred_at: new Date().toISOString(),
    'content-type': 'application/json',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}

/**
 * The fault scenarios of the relay and the inbox, run through the sample system (order
 * service with its embedded relay, shipping service with its inbox) with `MARKER` in every
 * payload: the normal path; records the inbox rejects; a handler failing in PostgreSQL (whose
 * message quotes the value) until dead-lettered; events the relay parks (no such topic,
 * too large). Returns once everything settled, with both services' outputs.
 */
export async function runMarkedFaultScenarios(
  system: SampleSystem,
): Promise<{ orders: string; shipping: string }> {
  const { orderTopic, ordersSchema } = system.names;

  // 1. The normal path: the marker travels in the order's payload and in the shipment's.
  const created = await fetch(`${system.orders.url}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      customerId: `c-${MARKER}`,
      amountCents: 100,
      currency: 'EUR',
      shippingAddress: `${MARKER}, 1 Sample Street`,
    }),
  });
  expect(created.status).toBe(201);
  const order = (await created.json()) as { id: string };
  expect((await system.http.confirm(order.id)).status).toBe(200);
  await waitFor('the shipment', async () => {
    const answer = await system.http.shipmentOf(order.id);
    return answer.status === 200;
  });

  // 2. Records the inbox must reject, and one whose handler fails in PostgreSQL (orderId is
  // not a uuid: PostgreSQL's message quotes the value) until it is dead-lettered.
  const bad = uuidv7();
  const producer = testKafka(system.brokers).producer();
  await producer.connect();
  await producer.send({
    topic: orderTopic,
    messages: [
      { key: bad, value: `{"orderId":"${MARKER}`, headers: headers(bad) },
      {
        key: bad,
        value: JSON.stringify({ m: MARKER }),
        headers: headers(bad, { event_id: undefined }),
      },
      {
        key: bad,
        value: JSON.stringify({ m: MARKER }),
        headers: headers(bad, { event_type: 'order.exploded' }),
      },
      {
        key: bad,
        value: JSON.stringify({ m: MARKER }),
        headers: headers(bad, { schema_version: '99' }),
      },
      {
        key: bad,
        value: JSON.stringify({ m: MARKER }),
        headers: headers(bad, { event_id: 'not-a-uuid' }),
      },
      {
        key: bad,
        value: JSON.stringify({ orderId: MARKER, customerId: MARKER, shippingAddress: MARKER }),
        headers: headers(bad),
      },
    ],
  });
  await producer.disconnect();

  // 3. Events the relay cannot publish: one routed to a topic the broker does not have, one
  // larger than the topic accepts.
  const parked = [uuidv7(), uuidv7()];
  await system.db.query(
    `INSERT INTO "${ordersSchema}".outbox (event_id, event_type, schema_version, aggregate_type,
       aggregate_id, aggregate_version, occurred_at, payload, topic)
     VALUES ($1, 'order.noted', 1, 'order', $3, 1, now(), $4, $5),
            ($2, 'order.noted', 1, 'order', $6, 1, now(), $7, NULL)`,
    [
      parked[0],
      parked[1],
      `agg-a-${randomBytes(4).toString('hex')}`,
      JSON.stringify({ m: MARKER }),
      `no-such-topic-${randomBytes(4).toString('hex')}`,
      `agg-b-${randomBytes(4).toString('hex')}`,
      JSON.stringify({ m: MARKER, pad: MARKER.repeat(Math.ceil(1_100_000 / MARKER.length)) }),
    ],
  );

  // Everything settled: both poison events parked, every record on the topic committed.
  await waitFor(
    'the relay to park both poison events',
    async () => {
      const { rows } = await system.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${ordersSchema}".outbox WHERE event_id = ANY($1) AND parked_at IS NOT NULL`,
        [parked],
      );
      return rows[0]!.n === 2;
    },
    { timeoutMs: 90_000, intervalMs: 250 },
  );
  const admin = testKafka(system.brokers).admin();
  await admin.connect();
  try {
    await waitFor(
      'the shipping consumer to settle every record',
      async () => {
        const ends = await admin.fetchTopicOffsets(orderTopic);
        const [committed] = await admin.fetchOffsets({
          groupId: system.names.consumerGroup,
          topics: [orderTopic],
        });
        // An empty partition has nothing to commit (-1).
        const at = (partition: number) =>
          committed!.partitions.find((p) => p.partition === partition)?.offset;
        return ends.every((end) => end.offset === '0' || at(end.partition) === end.offset);
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    ).catch(async (error: unknown) => {
      const ends = await admin.fetchTopicOffsets(orderTopic);
      const committed = await admin.fetchOffsets({
        groupId: system.names.consumerGroup,
        topics: [orderTopic],
      });
      throw new Error(
        `${(error as Error).message}\nends ${JSON.stringify(ends)}\ncommitted ${JSON.stringify(committed)}\n${system.outputs()}`,
      );
    });
  } finally {
    await admin.disconnect();
  }

  return { orders: system.orders.output(), shipping: system.shipping.output() };
}

/** The lines of `output` carrying the marker. */
export function markerLeaks(output: string): string[] {
  return output.split('\n').filter((line) => line.includes(MARKER));
}
