import { Registry } from 'prom-client';
import { createRelayMetrics, type RelayMetrics } from '../metrics/relay.metrics';
import { PendingMarks, type KeptMark } from './pending-marks';

const marks = (...ids: number[]): KeptMark[] =>
  ids.map((id) => ({
    id: String(id),
    partition: 0,
    offset: String(id),
    row: { eventId: `e${id}`, createdAtMs: 0, attempts: 0, suspect: false },
  }));

const ids = (pending: PendingMarks) => {
  const out: string[] = [];
  for (let g = pending.next(); g; g = pending.next())
    out.push(`${g.leaseToken}:${g.marks.map((m) => m.id).join(',')}`);
  return out;
};

async function value(registry: Registry, name: 'pending_marks' | 'published_again_total') {
  const { values } = await registry.getSingleMetric(`t_${name}`)!.get();
  return values.find((v) => v.labels.cause === undefined || v.labels.cause === 'mark_dropped')
    ?.value;
}

describe('PendingMarks', () => {
  let registry: Registry;
  let metrics: RelayMetrics;
  beforeEach(() => {
    registry = new Registry();
    metrics = createRelayMetrics({ metrics: { registry, prefix: 't_' } });
  });

  it('Given marks kept by two claims, when they are taken, then they come oldest claim first, each with its lease token, and the gauge follows', async () => {
    const pending = new PendingMarks(metrics, 10);
    pending.keep('a', marks(1, 2));
    pending.keep('b', marks(3));
    expect(pending.size).toBe(3);
    expect(await value(registry, 'pending_marks')).toBe(3);
    expect(ids(pending)).toEqual(['a:1,2', 'b:3']);
    expect(pending.size).toBe(0);
    expect(await value(registry, 'pending_marks')).toBe(0);
  });

  it('Given the bound reached, when more marks are kept, then the oldest are dropped and counted as published again', async () => {
    const pending = new PendingMarks(metrics, 4);
    pending.keep('a', marks(1, 2, 3));
    pending.keep('b', marks(4, 5, 6));
    expect(pending.size).toBe(4);
    expect(await value(registry, 'published_again_total')).toBe(2);
    expect(ids(pending)).toEqual(['a:3', 'b:4,5,6']);
  });

  it('Given a group whose mark failed again, when it is put back, then it is the oldest again and the bound still holds', async () => {
    const pending = new PendingMarks(metrics, 3);
    pending.keep('a', marks(1, 2));
    const group = pending.next()!;
    pending.keep('b', marks(3, 4));
    pending.putBack(group);
    expect(ids(pending)).toEqual(['a:2', 'b:3,4']);
    expect(await value(registry, 'published_again_total')).toBe(1);
  });

  it('Given kept marks, when they are given up, then all are counted as published again and none is left', async () => {
    const pending = new PendingMarks(metrics, 10);
    pending.keep('a', marks(1, 2));
    expect(pending.dropAll()).toBe(2);
    expect(pending.size).toBe(0);
    expect(await value(registry, 'published_again_total')).toBe(2);
  });

  it('Given an acknowledged row with its payload, when its mark is kept, then only what the mark needs is held', () => {
    const pending = new PendingMarks(metrics, 10);
    const [mark] = marks(1);
    pending.keep('a', [{ ...mark!, row: { ...mark!.row, payload: 'x'.repeat(1000) } as never }]);
    expect(pending.next()!.marks[0]!.row).toEqual(mark!.row);
  });
});
