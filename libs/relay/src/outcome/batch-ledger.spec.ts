import type { ClaimedRow } from '../claim/claimed-batch';
import { BatchLedger } from './batch-ledger';

const row = (id: string, patch: Partial<ClaimedRow> = {}) =>
  ({ id, eventId: `e-${id}`, attempts: 0, suspect: false, ...patch }) as ClaimedRow;

const ledger = () => new BatchLedger({ maxAttempts: 10, backoff: { baseMs: 100, capMs: 1000 } });

describe('BatchLedger', () => {
  it('fails the head of a run with its decision and hands the rest of the run back', () => {
    const l = ledger();
    l.fail(
      [row('1'), row('2'), row('3', { suspect: true })],
      'orders',
      new Error('x'),
      'permanent',
    );
    const { failed, released, acked } = l.take();
    expect(failed).toEqual([
      expect.objectContaining({
        row: expect.objectContaining({ id: '1' }),
        topic: 'orders',
        kind: 'permanent',
        decision: { action: 'park', attempt: 1, reason: 'permanent' },
        error: 'Error: x',
      }),
    ]);
    // A suspect's claim is counted at its solo start, not at the claim: it gives none back.
    expect(released).toEqual([
      { id: '2', started: true },
      { id: '3', started: false },
    ]);
    expect(acked).toEqual([]);
  });

  it('pairs acked rows with their acks, and starts empty again after take()', () => {
    const l = ledger();
    l.ack(
      [row('1'), row('2')],
      [
        { partition: 0, offset: '7' },
        { partition: 1, offset: '9' },
      ],
    );
    l.release([row('3')], true);
    const entries = l.take();
    expect(entries.acked.map(({ id, partition, offset }) => [id, partition, offset])).toEqual([
      ['1', 0, '7'],
      ['2', 1, '9'],
    ]);
    expect(entries.released).toEqual([{ id: '3', started: true }]);
    expect(l.take()).toEqual({ acked: [], failed: [], released: [] });
  });
});
