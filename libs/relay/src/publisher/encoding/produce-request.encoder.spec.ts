import { kafkaCompression } from '../compression';
import { kafkajsCompressor, kafkajsProduceProtocol } from './kafkajs-produce.hook';
import {
  encodeCompressedProduceRequest,
  encodeProduceRequest,
  type ProduceRequestArgs,
} from './produce-request.encoder';

const NOW = 1_764_690_976_123;

/** What kafkajs 2.2.4 itself encodes for the same arguments (its Produce v3..v7 request body). */
async function kafkajsBytes(args: ProduceRequestArgs, version: number): Promise<Buffer> {
  const spy = jest.spyOn(Date, 'now').mockReturnValue(NOW);
  try {
    const { request } = kafkajsProduceProtocol()!.protocol({ version })(args);
    return (await request.encode()).buffer;
  } finally {
    spy.mockRestore();
  }
}

const long = (value: bigint) => ({ value });

function request(
  messages: ProduceRequestArgs['topicData'][number]['partitions'][number]['messages'],
) {
  return {
    acks: -1,
    timeout: 30_000,
    transactionalId: null,
    producerId: long(4711n),
    producerEpoch: 3,
    topicData: [{ topic: 'orders', partitions: [{ partition: 2, firstSequence: 17, messages }] }],
  } satisfies ProduceRequestArgs;
}

describe('encodeProduceRequest', () => {
  it.each([3, 7])(
    'encodes an event like the relay sends it byte for byte as kafkajs does (Produce v%i)',
    async (version) => {
      const args = request([
        {
          key: 'order-1',
          value: '{"orderId":"order-1","total":12.5}',
          headers: {
            traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
            event_id: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
            event_type: 'order.confirmed',
            schema_version: '1',
            aggregate_type: 'order',
            aggregate_id: 'order-1',
            aggregate_version: '2',
            occurred_at: '2026-12-02T10:11:12.345Z',
            'content-type': 'application/json',
          },
        },
      ]);
      expect(encodeProduceRequest(args, NOW).equals(await kafkajsBytes(args, version))).toBe(true);
    },
  );

  it('matches kafkajs for multi-byte UTF-8, Buffers, null and empty keys and values, repeated headers and long varints', async () => {
    const big = 'é'.repeat(70_000); // a length varint of three bytes
    const args = request([
      { key: 'ключ-🙂', value: '{"text":"grüße 🙂 日本"}', headers: { näme: 'wért 🙂' } },
      { key: null, value: null },
      { key: '', value: '', headers: {} },
      {
        key: Buffer.from([0, 255, 7]),
        value: Buffer.from('bytes'),
        headers: { b: Buffer.from([1, 2]) },
      },
      { key: 'k', value: big, headers: { multi: ['one', Buffer.from('two'), 'three'] } },
      ...Array.from({ length: 200 }, (_, i) => ({
        key: `k${i}`,
        value: 'x'.repeat(i * 3),
        headers: { n: String(i) },
      })),
    ]);
    expect(encodeProduceRequest(args, NOW).equals(await kafkajsBytes(args, 3))).toBe(true);
  });

  it('matches kafkajs for several topics and partitions, a numeric producer id and no transactional id', async () => {
    const args: ProduceRequestArgs = {
      acks: 1,
      timeout: 5000,
      producerId: 9,
      producerEpoch: 0,
      topicData: [
        {
          topic: 'a',
          partitions: [
            { partition: 0, firstSequence: 0, messages: [{ key: 'x', value: '1' }] },
            {
              partition: 5,
              firstSequence: 2_000_000_000,
              messages: [
                { key: 'y', value: '2' },
                { key: 'z', value: '3' },
              ],
            },
          ],
        },
        { topic: 'topic-β', partitions: [{ partition: 1, messages: [{ key: 'w', value: '4' }] }] },
      ],
    };
    expect(encodeProduceRequest(args, NOW).equals(await kafkajsBytes(args, 5))).toBe(true);
  });

  it.each([
    ['gzip', 1],
    ['snappy', 2],
  ] as const)(
    'encodes %s-compressed batches byte for byte as kafkajs does with the same codec',
    async (name, type) => {
      kafkaCompression(name); // registers the snappy codec, as the publisher does
      const args = {
        ...request(
          Array.from({ length: 50 }, (_, i) => ({
            key: `order-${i % 7}`,
            value: JSON.stringify({ orderId: `order-${i}`, items: [{ sku: 'A-1', quantity: i }] }),
            headers: { event_id: `id-${i}`, event_type: 'order.confirmed', multi: ['a', 'b'] },
          })),
        ),
        compression: type,
      };
      const ours = await encodeCompressedProduceRequest(args, kafkajsCompressor(type), NOW);
      expect(ours.equals(await kafkajsBytes(args, 7))).toBe(true);
      expect(ours.length).toBeLessThan(encodeProduceRequest(args, NOW).length / 2);
    },
  );

  it('refuses a header value that is neither a string nor a Buffer, naming the header', () => {
    const args = request([{ key: 'k', value: 'v', headers: { bad: 42 as unknown as string } }]);
    expect(() => encodeProduceRequest(args, NOW)).toThrow(
      /Kafka header "bad" must be a string or a Buffer/,
    );
  });
});
