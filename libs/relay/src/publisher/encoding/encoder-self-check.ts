import { encodeProduceRequest, type ProduceRequestArgs } from './produce-request.encoder';

interface KafkajsRequest {
  readonly apiVersion: number;
  encode(): Promise<{ readonly buffer: Buffer }>;
}

type ProduceBuilder = (args: ProduceRequestArgs) => {
  request: KafkajsRequest;
  response: unknown;
};

/** kafkajs' Produce request definition (`requests.Produce`), as 2.2.x shapes it. @internal */
export interface KafkajsProduceDefinition {
  readonly versions: readonly string[];
  protocol: (lookup: { version: number }) => ProduceBuilder;
}

/** The time both encoders are given (kafkajs through the messages' timestamp). */
const AT = Date.UTC(2026, 0, 31, 12, 0, 0, 123);

/**
 * A request shaped like the relay's (contract headers, a UTF-8 payload, a repeated header,
 * a null key, two topics and partitions): without timestamps, what the relay's encoder sees;
 * with `timestamp`, what kafkajs then encodes as "now".
 */
function syntheticRequest(timestamp?: number): ProduceRequestArgs {
  const message = (key: string | null, i: number) => ({
    key,
    value: `{"n":${i},"text":"grüße 🙂","pad":"${'x'.repeat(130 * i)}"}`,
    headers: {
      event_id: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      event_type: 'order.confirmed',
      schema_version: '1',
      aggregate_id: key ?? '',
      occurred_at: '2026-01-31T12:00:00.000Z',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      multi: ['one', Buffer.from('two')],
    },
    ...(timestamp === undefined ? {} : { timestamp }),
  });
  return {
    acks: -1,
    timeout: 30_000,
    transactionalId: null,
    producerId: { value: 4711n },
    producerEpoch: 3,
    topicData: [
      {
        topic: 'orders',
        partitions: [
          { partition: 0, firstSequence: 17, messages: [message('o-1', 0), message(null, 1)] },
          { partition: 3, firstSequence: 0, messages: [message('o-2', 2)] },
        ],
      },
      { topic: 'payments', partitions: [{ partition: 1, messages: [message('p-1', 3)] }] },
    ],
  };
}

/**
 * The start-up check of the relay's encoder: true when it and kafkajs' encode one synthetic
 * request to equal bytes, for every Produce version from 3 to 7.
 * @param encode the relay's encoder (a seam for tests)
 * @internal
 */
export async function encodersAgree(
  protocol: KafkajsProduceDefinition,
  encode: (args: ProduceRequestArgs, now: number) => Buffer = encodeProduceRequest,
): Promise<boolean> {
  const args = syntheticRequest();
  try {
    for (const version of [3, 4, 5, 6, 7]) {
      const { request } = protocol.protocol({ version })(syntheticRequest(AT));
      const expected = (await request.encode()).buffer;
      if (!encode(args, AT).equals(expected)) return false;
    }
    return true;
  } catch {
    return false;
  }
}
