import { encodersAgree } from './encoder-self-check';
import {
  ENCODED_KAFKAJS_VERSION,
  fastEncodingBlocker,
  installFastProduceEncoding,
  installedKafkajsVersion,
  kafkajsProduceProtocol,
  markFastRecord,
} from './kafkajs-produce.hook';
import { encodeProduceRequest, type ProduceRequestArgs } from './produce-request.encoder';

/** kafkajs' own request builder: the header it writes around a request's encoded body. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' protocol modules have no types
const buildRequest = require('kafkajs/src/protocol/request') as (args: {
  correlationId: number;
  clientId: string;
  request: { apiKey: number; apiVersion: number; encode(): Promise<{ buffer: Buffer }> };
}) => Promise<{ buffer: Buffer }>;

describe('the fast encoding hook', () => {
  it('is allowed only with the kafkajs version whose bytes the specs compare', () => {
    expect(installedKafkajsVersion()).toBe(ENCODED_KAFKAJS_VERSION);
    expect(fastEncodingBlocker()).toBeUndefined();
    expect(fastEncodingBlocker('2.2.5')).toMatch(
      /kafkajs 2\.2\.5 is installed; the relay's encoder reproduces the bytes of kafkajs 2\.2\.4 only/,
    );
  });

  it('finds at start-up that both encoders give the same bytes for a synthetic request', async () => {
    await expect(encodersAgree(kafkajsProduceProtocol()!)).resolves.toBe(true);
  });

  it('finds at start-up an encoder that gets one byte wrong, or throws', async () => {
    const protocol = kafkajsProduceProtocol()!;
    const offByOne = (args: Parameters<typeof encodeProduceRequest>[0], now: number) => {
      const bytes = encodeProduceRequest(args, now);
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
      return bytes;
    };
    await expect(encodersAgree(protocol, offByOne)).resolves.toBe(false);
    await expect(
      encodersAgree(protocol, () => {
        throw new Error('unsupported');
      }),
    ).resolves.toBe(false);
  });

  it('installs once per process when both checks pass', async () => {
    const first = installFastProduceEncoding();
    expect(installFastProduceEncoding()).toBe(first);
    await expect(first).resolves.toEqual({ enabled: true });
  });

  it("sends a marked request's body as the relay's encoder made it, inside the request kafkajs frames around it", async () => {
    await expect(installFastProduceEncoding()).resolves.toEqual({ enabled: true });
    const body = (args: ProduceRequestArgs) => encodeProduceRequest(args, 0);
    const message = (i: number) =>
      markFastRecord({ key: `k-${i}`, value: `{"n":${i}}`, headers: { event_id: `e-${i}` } }, body);
    const args: ProduceRequestArgs = {
      acks: -1,
      timeout: 30_000,
      topicData: [
        { topic: 'orders', partitions: [{ partition: 2, messages: [0, 1, 2].map(message) }] },
      ],
    };
    for (const version of [3, 7]) {
      const { request } = kafkajsProduceProtocol()!.protocol({ version })(args);
      const encoded = (await request.encode()).buffer;
      expect(encoded.equals(body(args))).toBe(true);
      const framed = await buildRequest({
        correlationId: 7,
        clientId: 'relay',
        request: { ...request, apiKey: 0 },
      });
      expect(framed.buffer.subarray(framed.buffer.length - encoded.length).equals(encoded)).toBe(
        true,
      );
      expect(framed.buffer.readInt32BE(0)).toBe(framed.buffer.length - 4);
    }
  });
});
