import { Logger } from '@nestjs/common';
import { PastLogEndRecovery, type RecoveryTarget } from './past-log-end.recovery';

/** A target whose admin reports offsets 3 (start) to 9 (end) and `committed` for the group. */
function target(committed: string, fail = false) {
  const seeks: unknown[] = [];
  const admin = {
    connect: () => (fail ? Promise.reject(new Error('down')) : Promise.resolve()),
    disconnect: () => Promise.resolve(),
    fetchTopicOffsets: () => Promise.resolve([{ partition: 0, offset: '9', high: '9', low: '3' }]),
    fetchOffsets: () =>
      Promise.resolve([{ topic: 't', partitions: [{ partition: 0, offset: committed }] }]),
  };
  const of: RecoveryTarget = {
    client: { admin: () => admin as never },
    consumer: { seek: (at) => void seeks.push(at) },
    groupId: 'g',
  };
  const logger = new Logger('test');
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  return { recovery: new PastLogEndRecovery(() => of, logger), seeks, logger };
}

const at = (fetchOffset: bigint) => [{ topic: 't', partition: 0, fetchOffset }];

describe('PastLogEndRecovery (OffsetOutOfRange through the public kafkajs API)', () => {
  it('Given a fetch past the log end, then it seeks to the committed offset when the log has it, else to the log end, and takes the error', async () => {
    const inLog = target('7');
    expect(await inLog.recovery.handle(at(1006n))).toEqual([true]);
    expect(inLog.seeks).toEqual([{ topic: 't', partition: 0, offset: '7' }]);
    const pastToo = target('1006');
    expect(await pastToo.recovery.handle(at(1006n))).toEqual([true]);
    expect(pastToo.seeks).toEqual([{ topic: 't', partition: 0, offset: '9' }]);
    expect(pastToo.logger.warn).toHaveBeenCalledTimes(1);
  });

  it("Given a fetch before the log start, then it leaves the error to kafkajs' own reset", async () => {
    const before = target('1');
    expect(await before.recovery.handle(at(1n))).toEqual([false]);
    expect(before.seeks).toEqual([]);
  });

  it("Given the admin unreachable, then the error is taken without a seek: the group's offset stays and the next fetch asks again", async () => {
    const down = target('7', true);
    expect(await down.recovery.handle(at(1006n))).toEqual([true]);
    expect(down.seeks).toEqual([]);
  });
});
