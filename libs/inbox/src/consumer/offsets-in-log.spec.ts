import { Registry } from 'prom-client';
import { InboxMetrics } from '../metrics/inbox.metrics';
import { OffsetRefusals, offsetsInLog } from './offsets-in-log';

const at = (...offsets: number[]) => offsets.map((o) => ({ offset: String(o) }));

describe('offsetsInLog', () => {
  it('keeps records below the high watermark in increasing order and refuses those past the log end', () => {
    const { kept, refused } = offsetsInLog(at(0, 1, 2, 1003, 1004, 6, 7, 8), '9');
    expect(kept.map((m) => m.offset)).toEqual(['0', '1', '2', '6', '7', '8']);
    expect(refused).toEqual([{ code: 'offset_beyond_log_end', offsets: [1003n, 1004n] }]);
  });

  it('refuses a record at the high watermark itself (the next offset the log will give)', () => {
    expect(offsetsInLog(at(8, 9), '9').refused).toEqual([
      { code: 'offset_beyond_log_end', offsets: [9n] },
    ]);
  });

  it('refuses records whose offsets do not increase past the last one kept, and keeps those after', () => {
    const { kept, refused } = offsetsInLog(at(3, 4, 5, 2, 3, 4, 9, 10), '11');
    expect(kept.map((m) => m.offset)).toEqual(['3', '4', '5', '9', '10']);
    expect(refused).toEqual([{ code: 'offset_not_increasing', offsets: [2n, 3n, 4n] }]);
  });
});

describe('OffsetRefusals', () => {
  it('counts each refusal once per consumer and not again when the same bad bytes are fetched again', async () => {
    const registry = new Registry();
    const logger = { warn: jest.fn() };
    const refusals = new OffsetRefusals(new InboxMetrics(registry), logger as never);
    const batch = { topic: 't', partition: 0, highWatermark: '9' };
    const refusal = { code: 'offset_beyond_log_end' as const, offsets: [1003n, 1004n] };
    refusals.refuse(batch, refusal, ['a', 'b']);
    refusals.refuse(batch, refusal, ['a', 'b']);
    const values = (
      await registry.getSingleMetric('nest_outbox_inbox_events_rejected_total')!.get()
    ).values;
    expect(values.map((v) => [v.labels.consumer, v.labels.reason, v.value])).toEqual([
      ['a', 'offset_beyond_log_end', 2],
      ['b', 'offset_beyond_log_end', 2],
    ]);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(String(logger.warn.mock.calls[0][0])).not.toMatch(/value|payload/);
  });
});
