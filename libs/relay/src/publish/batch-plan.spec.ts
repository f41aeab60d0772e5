import { TopicRouter } from '../routing/topic-router';
import type { ClaimedRow } from '../claim/claimed-batch';
import { byAggregate, chunkByBytes, planBatch, type PlannedItem } from './batch-plan';

let nextId = 1;
function row(aggregateId: string, patch: Partial<ClaimedRow> = {}): ClaimedRow {
  const id = String(nextId++);
  return {
    id,
    eventId: `e-${id}`,
    eventType: 'thing.happened',
    schemaVersion: 1,
    aggregateType: 'thing',
    aggregateId,
    aggregateVersion: id,
    occurredAtMs: Date.parse('2026-01-31T12:00:00.000Z'),
    createdAtMs: 0,
    payload: '{}',
    headers: {},
    topic: null,
    attempts: 0,
    suspect: false,
    ...patch,
  };
}

const keys = (groups: readonly PlannedItem[][]) => groups.map((g) => g.map((i) => i.row.id));

describe('planBatch', () => {
  it('groups rows by aggregate and sends clean heads together, suspect heads alone', () => {
    const rows = [row('a'), row('b', { suspect: true }), row('a'), row('b')];
    const plan = planBatch(rows, new TopicRouter(new Map(), 'events'));
    expect(keys(plan.clean)).toEqual([[rows[0]!.id, rows[2]!.id]]);
    expect(keys(plan.suspects)).toEqual([[rows[1]!.id, rows[3]!.id]]);
    expect(plan.refused).toEqual([]);
    expect(plan.clean[0]![0]!.record).toMatchObject({ topic: 'events', key: 'a', value: '{}' });
  });

  it('holds back the first row without a topic and every later row of its aggregate', () => {
    const router = new TopicRouter(new Map([['thing', 'things']]), undefined);
    const rows = [
      row('a'),
      row('x', { aggregateType: 'lost' }), // no route, no topic of its own
      row('x', { aggregateType: 'lost', topic: 'own' }), // routable, but behind it
      row('b', { aggregateType: 'lost', topic: 'own' }),
    ];
    const plan = planBatch(rows, router);
    expect(plan.refused.map((r) => r.run.map((x) => x.id))).toEqual([[rows[1]!.id, rows[2]!.id]]);
    expect(plan.refused[0]!.error.name).toBe('NoTopicError');
    expect(keys(plan.clean)).toEqual([[rows[0]!.id], [rows[3]!.id]]);
    expect(plan.clean[1]![0]!.record.topic).toBe('own');
  });

  it('refuses a row whose columns have no record form, with a reason naming the column, and holds back its run only', () => {
    const bad: [Partial<ClaimedRow>, RegExp][] = [
      [{ occurredAtMs: Infinity }, /unencodable: occurred_at is infinity/],
      [{ occurredAtMs: -Infinity }, /unencodable: occurred_at is -infinity/],
      [{ occurredAtMs: 9e15 }, /unencodable: occurred_at is after \+275760/],
      [{ headers: { 'x-num': 5 } }, /unencodable: headers\."x-num" is a number, not a string/],
      [{ headers: { o: { a: '1' } } }, /unencodable: headers\."o" is an object, not a string/],
      [{ headers: { n: null } }, /unencodable: headers\."n" is null/],
      [{ headers: ['a'] }, /unencodable: headers is an array/],
      [{ headers: 'text' }, /unencodable: headers is a string/],
      [{ topic: 'no spaces' }, /unencodable: topic "no spaces" is not a Kafka topic name/],
      [{ topic: '..' }, /unencodable: topic/],
    ];
    for (const [patch, reason] of bad) {
      const rows = [row('ok'), row('bad', patch), row('bad'), row('ok')];
      const plan = planBatch(rows, new TopicRouter(new Map(), 'events'));
      expect(plan.refused.map((r) => r.run.map((x) => x.id))).toEqual([[rows[1]!.id, rows[2]!.id]]);
      expect(plan.refused[0]!.error.message).toMatch(reason);
      expect(keys(plan.clean)).toEqual([[rows[0]!.id, rows[3]!.id]]);
    }
  });

  it('keeps the era of occurred_at and the exact text of a bigint aggregate version', () => {
    const bc = Date.UTC(-4713, 10, 24); // 4714-11-24 BC (astronomical year -4713)
    const rows = [
      row('a', { occurredAtMs: bc, aggregateVersion: '9007199254740993' }),
      row('b', { occurredAtMs: Date.UTC(12345, 0, 1), headers: null }),
    ];
    const [a, b] = planBatch(rows, new TopicRouter(new Map(), 'events')).clean.flat();
    expect(a!.record.headers.occurred_at).toBe('-004713-11-24T00:00:00.000Z');
    expect(new Date(a!.record.headers.occurred_at!).getTime()).toBe(bc);
    expect(a!.record.headers.aggregate_version).toBe('9007199254740993');
    expect(b!.record.headers.occurred_at).toBe('+012345-01-01T00:00:00.000Z');
  });
});

describe('chunkByBytes', () => {
  it('cuts requests at the byte budget and keeps id order across them', () => {
    const rows = [row('a', { payload: 'x'.repeat(500) }), row('b'), row('a'), row('c')];
    const plan = planBatch(rows, new TopicRouter(new Map(), 'events'));
    // 300 bytes of framing per record: the first record alone nearly fills 900 bytes.
    const chunks = chunkByBytes(plan.clean, 900);
    expect(keys(chunks)).toEqual([[rows[0]!.id], [rows[1]!.id, rows[2]!.id], [rows[3]!.id]]);
  });
});

describe('byAggregate', () => {
  it('splits a request by aggregate, in order of first appearance', () => {
    const rows = [row('a'), row('b'), row('a')];
    const items = planBatch(rows, new TopicRouter(new Map(), 'events')).clean.flat();
    const sorted = [...items].sort((x, y) => Number(x.row.id) - Number(y.row.id));
    expect(keys(byAggregate(sorted))).toEqual([[rows[0]!.id, rows[2]!.id], [rows[1]!.id]]);
  });
});
