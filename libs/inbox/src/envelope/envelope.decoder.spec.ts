import { toKafkaHeaders, uuidv7 } from '@nest-outbox/core';
import { decodeEnvelope } from './envelope.decoder';

const rules = {
  eventTypes: new Set(['order.confirmed']),
  schemaVersions: new Set([1]),
  maxMessageBytes: 100,
};
const headers = (over: Record<string, string> = {}) => ({
  ...toKafkaHeaders({
    eventId: uuidv7(),
    eventType: 'order.confirmed',
    schemaVersion: 1,
    aggregateType: 'order',
    aggregateId: 'o-1',
    aggregateVersion: 3,
    occurredAt: new Date('2030-01-01T00:00:00Z'),
    headers: { traceparent: 'tp', tenant: 'acme' },
  }),
  ...over,
});

const deep = '['.repeat(100_000) + ']'.repeat(100_000);

describe('decodeEnvelope', () => {
  it('decodes a contract record (already parsed by Nest, or raw bytes) into an envelope', () => {
    for (const value of [{ total: 1 }, Buffer.from('{"total":1}')]) {
      const result = decodeEnvelope({ value, headers: headers() }, rules);
      expect(result.ok && result.envelope).toMatchObject({
        eventType: 'order.confirmed',
        aggregateId: 'o-1',
        aggregateVersion: 3,
        payload: { total: 1 },
        headers: { traceparent: 'tp', tenant: 'acme' },
      });
    }
  });

  it.each([
    ['not_json', { value: 'nope {', headers: headers() }],
    ['missing_header', { value: '{}', headers: { ...headers(), aggregate_id: '' } }],
    ['invalid_event_id', { value: '{}', headers: headers({ event_id: 'abc' }) }],
    ['unknown_event_type', { value: '{}', headers: headers({ event_type: 'order.lost' }) }],
    ['unsupported_schema_version', { value: '{}', headers: headers({ schema_version: '2' }) }],
    ['oversize', { value: Buffer.alloc(101, 'a'), headers: headers() }],
    ['invalid_header', { value: '{}', headers: headers({ occurred_at: 'yesterday' }) }],
    ['invalid_header', { value: '{}', headers: headers({ aggregate_id: 'o\u0000' }) }],
    ['invalid_header', { value: '{}', headers: headers({ event_type: 'order\nconfirmed' }) }],
    ['invalid_header', { value: '{}', headers: headers({ aggregate_type: 'x'.repeat(1001) }) }],
    ['not_json', { value: null, headers: headers() }],
    ['too_many_headers', { value: '{}', headers: { 'x-nest-outbox-too-many-headers': '50000' } }],
  ])('rejects with %s', (code, record) => {
    const result = decodeEnvelope(record, rules);
    expect(result.ok ? 'ok' : result.code).toBe(code);
  });

  it.each([
    ['text', { value: deep, headers: headers() }],
    ['parsed by Nest', { value: JSON.parse(deep) as unknown, headers: headers() }],
    [
      'in a header',
      { value: '{}', headers: { ...headers(), tenant: JSON.parse(deep) as unknown } },
    ],
  ])(
    'rejects 100,000 levels of nesting (%s) as too_deep without running out of stack',
    (_, record) => {
      const result = decodeEnvelope(record, { ...rules, maxMessageBytes: 1_000_000 });
      expect(result.ok ? 'ok' : result.code).toBe('too_deep');
    },
  );

  it.each([
    ['parsed by Nest', { value: new Array(300_000).fill(0) as unknown, headers: headers() }],
    ['in a header', { value: '{}', headers: { ...headers(), tenant: new Array(300_000).fill(0) } }],
  ])(
    'rejects a flat 300,000-element array (%s) as oversize naming the count of values, not the depth',
    (_, record) => {
      const result = decodeEnvelope(record, { ...rules, maxMessageBytes: 200_000 });
      expect(result.ok ? 'ok' : [result.code, /JSON values/.test(result.reason)]).toEqual([
        'oversize',
        true,
      ]);
    },
  );

  it('never echoes the value it refused in its reason', () => {
    const marker = 'MARKER\u0000x';
    for (const over of <Record<string, string>[]>[
      { event_id: marker },
      { event_type: marker },
      { schema_version: marker },
      { aggregate_version: marker },
      { aggregate_id: marker },
    ]) {
      const result = decodeEnvelope({ value: '{}', headers: headers(over) }, rules);
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toContain('MARKER');
    }
  });

  it('accepts the nesting limit itself and a payload with NUL and surrogates (the handler decides)', () => {
    const value = '['.repeat(64) + '"\\u0000\\ud800"' + ']'.repeat(64);
    expect(
      decodeEnvelope({ value, headers: headers() }, { ...rules, maxMessageBytes: 1000 }).ok,
    ).toBe(true);
  });
});
