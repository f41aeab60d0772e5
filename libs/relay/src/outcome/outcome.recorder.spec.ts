import { Registry } from 'prom-client';
import type { ClaimedBatch, ClaimedRow } from '../claim/claimed-batch';
import { createRelayMetrics } from '../metrics/relay.metrics';
import type { RelayFigures } from '../store/relay-stats';
import type { AckedRow, RelayStore } from '../store/relay.store';
import { emptyOutcome } from './batch-outcome';
import { OutcomeRecorder } from './outcome.recorder';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
  code: 'ECONNREFUSED',
});
const startingUp = Object.assign(new Error('the database system is starting up'), {
  code: '57P03',
});

const row = (id: string) =>
  ({ id, eventId: `e${id}`, createdAtMs: Date.now(), attempts: 0, suspect: false }) as ClaimedRow;
const batch = (token: string, ...ids: string[]): ClaimedBatch => ({
  leaseToken: token,
  leaseDeadline: Date.now() + 30_000,
  rows: ids.map(row),
  crashLoopParked: [],
});
const entries = (...ids: string[]) => ({
  acked: ids.map((id) => ({ id, partition: 0, offset: id, row: row(id) })),
  failed: [],
  released: [],
});

/** A store whose marks answer with `answers` in turn (an error is thrown). */
function storeAnswering(...answers: (ReadonlySet<string> | Error | 'hang')[]) {
  const calls: { token: string; ids: string[]; again: boolean }[] = [];
  const store = {
    mark: (token: string, acks: readonly AckedRow[], again = false) => {
      calls.push({ token, ids: acks.map((a) => a.id), again });
      const answer = answers.shift() ?? new Set<string>();
      if (answer === 'hang') return new Promise(() => undefined);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    fail: () => Promise.resolve(new Set<string>()),
    release: () => Promise.resolve(),
  };
  return { store: store as unknown as RelayStore, calls };
}

function recorderWith(store: RelayStore) {
  const registry = new Registry();
  const metrics = createRelayMetrics({ metrics: { registry, prefix: 't_' } });
  const figures = { countPublished: () => undefined } as RelayFigures;
  const value = async (name: string, cause?: string) =>
    (await registry.getSingleMetric(`t_${name}`)!.get()).values.find(
      (v) => cause === undefined || v.labels.cause === cause,
    )?.value;
  return { recorder: new OutcomeRecorder(store, metrics, figures), value };
}

describe('OutcomeRecorder: marks through a database outage', () => {
  it('Given a mark refused for an outage, when the database answers again, then the same events are marked under the same lease token and counted as published and recovered', async () => {
    const { store, calls } = storeAnswering(refused, startingUp, new Set());
    const { recorder, value } = recorderWith(store);
    const outcome = emptyOutcome();

    await recorder.record(batch('A', '1', '2'), entries('1', '2'), outcome);
    expect(outcome.published).toBe(0);
    expect(recorder.pendingMarks).toBe(2);
    expect(await value('pending_marks')).toBe(2);

    await expect(recorder.flushPending()).rejects.toBe(startingUp);
    expect(recorder.pendingMarks).toBe(2);
    expect(await recorder.flushPending()).toMatchObject({ published: 2, leaseLost: 0 });
    expect(recorder.pendingMarks).toBe(0);
    expect(calls.slice(1)).toEqual([
      { token: 'A', ids: ['1', '2'], again: true },
      { token: 'A', ids: ['1', '2'], again: true },
    ]);
    expect(await value('marks_recovered_total')).toBe(2);
    expect(await value('published_total')).toBe(2);
  });

  it('Given kept marks whose rows another claim took meanwhile, when they are marked, then those are counted as lease lost (published again elsewhere), not recovered', async () => {
    const { store } = storeAnswering(refused, new Set(['2']));
    const { recorder, value } = recorderWith(store);
    await recorder.record(batch('A', '1', '2'), entries('1', '2'), emptyOutcome());

    expect(await recorder.flushPending()).toMatchObject({ published: 1, leaseLost: 1 });
    expect(await value('marks_recovered_total')).toBe(1);
    expect(await value('published_again_total', 'lease_lost')).toBe(1);
  });

  it('Given a mark that fails for another reason than an outage, then the error is thrown and nothing is kept', async () => {
    const broken = Object.assign(new Error('syntax error'), { code: '42601' });
    const { store } = storeAnswering(broken);
    const { recorder } = recorderWith(store);
    await expect(recorder.record(batch('A', '1'), entries('1'), emptyOutcome())).rejects.toBe(
      broken,
    );
    expect(recorder.pendingMarks).toBe(0);
  });

  it('Given kept marks and a database that does not answer at shutdown, when they are flushed by a deadline, then the flush ends by it and gives them up, counted as published again', async () => {
    const { store } = storeAnswering(refused, 'hang');
    const { recorder, value } = recorderWith(store);
    await recorder.record(batch('A', '1', '2'), entries('1', '2'), emptyOutcome());

    expect(await recorder.flushPendingBy(Date.now() + 50)).toMatchObject({ published: 0 });
    expect(recorder.pendingMarks).toBe(0);
    expect(await value('published_again_total', 'mark_dropped')).toBe(2);
  });
});
