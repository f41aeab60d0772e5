import type { Logger } from '@nestjs/common';
import { KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { RecordEncoderChoice } from './record-encoder.choice';

const refused = (type: string) =>
  new KafkaJSNumberOfRetriesExceeded(
    new KafkaJSProtocolError({ message: type, type, code: 2, retriable: true } as never),
    { retryCount: 3, retryTime: 1 } as never,
  );

function choice(wanted: 'relay' | 'kafkajs' = 'relay') {
  const warn = jest.fn();
  return { encoder: new RecordEncoderChoice(wanted, { warn } as unknown as Logger), warn };
}

describe('RecordEncoderChoice', () => {
  it("starts on the relay's encoder when it is asked for and the process checks pass", async () => {
    const { encoder, warn } = choice();
    await encoder.settle();
    expect(encoder.fast).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it.each(['CORRUPT_MESSAGE', 'INVALID_RECORD'])(
    "switches to kafkajs' encoder for good, with one warning, when the broker answers %s to our bytes",
    async (type) => {
      const { encoder, warn } = choice();
      await encoder.settle();
      expect(encoder.fallBackOn(refused(type), true)).toBe(true);
      expect(encoder.fast).toBe(false);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toMatch(/retries the request \(nothing is parked for it\)/);
      // A request already encoded by kafkajs that gets the same answer is the record's fault.
      expect(encoder.fallBackOn(refused(type), false)).toBe(false);
      expect(warn).toHaveBeenCalledTimes(1);
    },
  );

  it('keeps its encoder on any other error', async () => {
    const { encoder } = choice();
    await encoder.settle();
    expect(encoder.fallBackOn(refused('MESSAGE_TOO_LARGE'), true)).toBe(false);
    expect(encoder.fallBackOn(new Error('CORRUPT_MESSAGE'), true)).toBe(false);
    expect(encoder.fast).toBe(true);
  });

  it('marks messages for the fast path only while it is on it', async () => {
    const fast = choice().encoder;
    await fast.settle();
    const plain = choice('kafkajs').encoder;
    await plain.settle();
    const message = () => ({ key: 'k', value: 'v', headers: { h: '1' } });
    const marks = (m: object) => Object.getOwnPropertySymbols(m).length;
    expect(marks(fast.mark(message()))).toBe(1);
    expect(marks(plain.mark(message()))).toBe(0);
    expect(plain.mark(message())).toEqual(message());
  });
});
