import { EVENT_HEADERS, toKafkaHeaders, type KafkaHeaderSource } from './event-contract';

const event: KafkaHeaderSource = {
  eventId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  eventType: 'order.confirmed',
  schemaVersion: 2,
  aggregateType: 'order',
  aggregateId: 'o-1',
  aggregateVersion: 7,
  occurredAt: new Date('2026-12-02T10:11:12.345Z'),
  headers: { traceparent: '00-abc-def-01', tenant: 't1' },
};

describe('toKafkaHeaders', () => {
  it('puts the event headers first and every contract field after them, as strings', () => {
    const headers = toKafkaHeaders(event);
    expect(Object.entries(headers)).toEqual([
      ['traceparent', '00-abc-def-01'],
      ['tenant', 't1'],
      [EVENT_HEADERS.eventId, event.eventId],
      [EVENT_HEADERS.eventType, 'order.confirmed'],
      [EVENT_HEADERS.schemaVersion, '2'],
      [EVENT_HEADERS.aggregateType, 'order'],
      [EVENT_HEADERS.aggregateId, 'o-1'],
      [EVENT_HEADERS.aggregateVersion, '7'],
      [EVENT_HEADERS.occurredAt, '2026-12-02T10:11:12.345Z'],
      [EVENT_HEADERS.contentType, 'application/json'],
    ]);
  });

  it('lets the contract fields win over event headers of the same name', () => {
    const headers = toKafkaHeaders({
      ...event,
      headers: { event_id: 'forged', aggregate_version: '999', 'content-type': 'text/plain' },
    });
    expect(headers.event_id).toBe(event.eventId);
    expect(headers.aggregate_version).toBe('7');
    expect(headers['content-type']).toBe('application/json');
  });

  it('takes an occurredAt already formatted as an ISO-8601 string as it is', () => {
    const headers = toKafkaHeaders({ ...event, occurredAt: '2026-12-02T10:11:12.345Z' });
    expect(headers.occurred_at).toBe('2026-12-02T10:11:12.345Z');
  });

  it('keeps a header named __proto__ as a header instead of changing the prototype', () => {
    const own = JSON.parse('{"__proto__":"x","a":"b"}') as Record<string, string>;
    const headers = toKafkaHeaders({ ...event, headers: own });
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(Object.keys(headers).slice(0, 2)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value).toBe('x');
  });
});
