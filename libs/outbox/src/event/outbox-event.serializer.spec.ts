import { InvalidEventError } from '../errors/invalid-event.error';
import { PayloadSerializationError } from '../errors/payload-serialization.error';
import { PayloadTooLargeError } from '../errors/payload-too-large.error';
import { outboxLockKey } from './lock-key';
import { serializeOutboxEvent, type SerializerSettings } from './outbox-event.serializer';

const settings: SerializerSettings = {
  qualifiedTable: '"app"."outbox"',
  maxPayloadBytes: 100,
  traceContext: () => ({ traceparent: 'tp-active', tracestate: 'ts-active' }),
};
const base = {
  eventType: 'order.confirmed',
  aggregateType: 'order',
  aggregateId: 'o-1',
  aggregateVersion: 2,
  payload: { a: 1 },
};

describe('serializeOutboxEvent', () => {
  it('assigns a UUIDv7, the defaults and the active trace context', () => {
    const row = serializeOutboxEvent(base, settings);
    expect(row.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(row).toMatchObject({
      schemaVersion: 1,
      topic: null,
      payloadJson: '{"a":1}',
      headers: { traceparent: 'tp-active', tracestate: 'ts-active' },
      lockKey: outboxLockKey('"app"."outbox"', 'order', 'o-1'),
    });
  });

  it("keeps the caller's traceparent and puts correlationId in the headers", () => {
    const row = serializeOutboxEvent(
      { ...base, headers: { Traceparent: 'tp-caller', x: 'y' }, correlationId: 'c-1' },
      settings,
    );
    expect(row.headers).toEqual({ traceparent: 'tp-caller', x: 'y', correlation_id: 'c-1' });
  });

  it.each([
    [{ eventType: '' }, 'eventType'],
    [{ aggregateId: 42 }, 'aggregateId'],
    [{ aggregateVersion: 1.5 }, 'aggregateVersion'],
    [{ aggregateVersion: -1 }, 'aggregateVersion'],
    [{ schemaVersion: 0 }, 'schemaVersion'],
    [{ occurredAt: new Date('nope') }, 'occurredAt'],
    [{ headers: { aggregate_id: 'x' } }, 'headers.aggregate_id'],
    [{ headers: { x: 1 } }, 'headers.x'],
  ])('refuses %p with InvalidEventError naming %s', (patch, field) => {
    expect(() => serializeOutboxEvent({ ...base, ...patch } as never, settings)).toThrow(
      InvalidEventError,
    );
    expect(() => serializeOutboxEvent({ ...base, ...patch } as never, settings)).toThrow(
      `"${field}"`,
    );
  });

  it('counts the payload limit in UTF-8 bytes', () => {
    expect(() =>
      serializeOutboxEvent({ ...base, payload: 'x'.repeat(90) }, settings),
    ).not.toThrow();
    expect(() => serializeOutboxEvent({ ...base, payload: '\u00e9'.repeat(50) }, settings)).toThrow(
      PayloadTooLargeError,
    );
  });

  it('turns BigInt and cycles into PayloadSerializationError', () => {
    expect(() => serializeOutboxEvent({ ...base, payload: { n: 1n } }, settings)).toThrow(
      PayloadSerializationError,
    );
  });

  it('gives one aggregate one lock key per table, and different aggregates different keys', () => {
    expect(outboxLockKey('t', 'order', '1')).toBe(outboxLockKey('t', 'order', '1'));
    expect(outboxLockKey('t', 'order', '1')).not.toBe(outboxLockKey('t', 'order', '2'));
    expect(outboxLockKey('t', 'order', '1')).not.toBe(outboxLockKey('u', 'order', '1'));
    expect(outboxLockKey('t', 'a', 'b\u0000c')).not.toBe(outboxLockKey('t', 'a\u0000b', 'c'));
  });
});
