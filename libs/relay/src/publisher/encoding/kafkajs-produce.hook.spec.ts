import { encodersAgree } from './encoder-self-check';
import {
  ENCODED_KAFKAJS_VERSION,
  fastEncodingBlocker,
  installFastProduceEncoding,
  installedKafkajsVersion,
  kafkajsProduceProtocol,
} from './kafkajs-produce.hook';
import { encodeProduceRequest } from './produce-request.encoder';

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
});
