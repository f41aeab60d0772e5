import { toKafkaHeaders, uuidv7 } from '@nest-outbox/core';
import { resolveHandlerPolicy, resolveInboxOptions } from '../options/inbox-options.resolver';
import type { InboxStore, PendingRegistration } from '../store/inbox.store';
import { registerAhead } from './chunk-registration';
import { InboxBatch } from './inbox-batch.context';

const options = resolveInboxOptions({ kafka: { brokers: ['localhost:9092'] } });
const policy = resolveHandlerPolicy('c', options, { eventTypes: ['order.confirmed'] });

function record(eventId: string, eventType = 'order.confirmed') {
  return {
    value: { total: 1 },
    headers: toKafkaHeaders({
      eventId,
      eventType,
      schemaVersion: 1,
      aggregateType: 'order',
      aggregateId: 'o-1',
      aggregateVersion: 1,
      occurredAt: new Date(),
      headers: {},
    }) as Record<string, unknown>,
  };
}

/** A store that records the bulk registrations and answers that `known` ids already exist. */
function fakeStore(known: string[]) {
  const calls: PendingRegistration[][] = [];
  const store = {
    registerMany: (_c: string, _at: unknown, pending: readonly PendingRegistration[]) => {
      calls.push([...pending]);
      return Promise.resolve(
        new Set(pending.map((p) => p.event.eventId).filter((id) => !known.includes(id))),
      );
    },
  } as unknown as InboxStore;
  return { store, calls };
}

describe('registerAhead', () => {
  it('registers the accepted records once each, in one call, and marks only first offsets of new rows fresh', async () => {
    const [a, b, old] = [uuidv7(), uuidv7(), uuidv7()];
    const records = [
      { offset: '10', record: record(a) },
      { offset: '11', record: record(old) },
      { offset: '12', record: record(uuidv7(), 'order.cancelled') }, // rejected by the guard
      { offset: '13', record: record(a) }, // repeated inside the chunk
      { offset: '14', record: record(b) },
    ];
    const { store, calls } = fakeStore([old]);
    const batch = new InboxBatch();
    await registerAhead(
      batch,
      { consumer: 'c', policy, store, batch: false },
      { topic: 't', partition: 0 },
      records,
    );

    expect(calls.map((c) => c.map((p) => [p.offset, p.event.eventId]))).toEqual([
      [
        ['10', a],
        ['11', old],
        ['14', b],
      ],
    ]);
    expect(batch.ahead.claim('c', '10', a)).toBe(true);
    expect(batch.ahead.claim('c', '11', old)).toBe(false);
    expect(batch.ahead.claim('c', '12', 'x')).toBeUndefined(); // not registered: record by record
    expect(batch.ahead.claim('c', '13', a)).toBe(false);
    expect(batch.ahead.unclaimed()).toEqual({ consumer: 'c', offset: '14', eventId: b });
    expect(batch.ahead.claim('c', '14', b)).toBe(true);
    expect(batch.ahead.unclaimed()).toBeUndefined();
    // The guard gets the very decode results registration used, rejections included.
    expect(batch.ahead.resultOf(records[2]!.record, policy)).toMatchObject({
      ok: false,
      code: 'unknown_event_type',
    });
  });

  it('makes no call when no record of the chunk is accepted', async () => {
    const { store, calls } = fakeStore([]);
    const batch = new InboxBatch();
    const records = [{ offset: '1', record: record(uuidv7(), 'other') }];
    await registerAhead(
      batch,
      { consumer: 'c', policy, store, batch: false },
      { topic: 't', partition: 0 },
      records,
    );
    expect(calls).toEqual([]);
  });
});

describe('InboxBatch registrations ahead', () => {
  it('is fresh for the first claim only, and refuses a record that decodes to another event id', () => {
    const batch = new InboxBatch();
    batch.ahead.add('c', '5', 'e-1', true);
    expect(() => batch.ahead.claim('c', '5', 'e-2')).toThrow(/registered ahead for event e-1/);
    expect(batch.ahead.claim('c', '5', 'e-1')).toBe(true);
    expect(batch.ahead.claim('c', '5', 'e-1')).toBe(false); // a second handler with the same consumer
    expect(batch.ahead.claim('other', '5', 'e-1')).toBeUndefined();
  });
});

describe('AheadRegistrations: decode results kept for the guards', () => {
  it('gives each handler the result registered under its own rules, and none under rules never used', async () => {
    const other = resolveHandlerPolicy('d', options, { eventTypes: ['order.cancelled'] });
    const unused = resolveHandlerPolicy('e', options, {});
    const batch = new InboxBatch();
    const records = [{ offset: '1', record: record(uuidv7(), 'order.confirmed') }];
    await registerAhead(
      batch,
      { consumer: 'c', policy, store: fakeStore([]).store, batch: true },
      {
        topic: 't',
        partition: 0,
      },
      records,
    );
    await registerAhead(
      batch,
      { consumer: 'd', policy: other, store: fakeStore([]).store, batch: true },
      {
        topic: 't',
        partition: 0,
      },
      records,
    );

    const parsed = records[0]!.record;
    expect(batch.ahead.resultOf(parsed, policy)).toMatchObject({ ok: true });
    expect(batch.ahead.resultOf(parsed, other)).toMatchObject({
      ok: false,
      code: 'unknown_event_type',
    });
    expect(batch.ahead.resultOf(parsed, unused)).toBeUndefined();
    expect(batch.ahead.headersOf(parsed)).toMatchObject({ event_type: 'order.confirmed' });
    expect(batch.ahead.resultOf({}, policy)).toBeUndefined();
  });

  it('keeps nothing per parsed record once its chunk is settled, committed or rolled back', async () => {
    for (const committed of [true, false]) {
      const batch = new InboxBatch();
      const records = [{ offset: '1', record: record(uuidv7()) }];
      await registerAhead(
        batch,
        { consumer: 'c', policy, store: fakeStore([]).store, batch: true },
        { topic: 't', partition: 0 },
        records,
      );
      expect(batch.ahead.resultOf(records[0]!.record, policy)).toMatchObject({ ok: true });

      batch.settle(committed);

      expect(batch.ahead.resultOf(records[0]!.record, policy)).toBeUndefined();
      expect(batch.ahead.headersOf(records[0]!.record)).toBeUndefined();
    }
  });
});
