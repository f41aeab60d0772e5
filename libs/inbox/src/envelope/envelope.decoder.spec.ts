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
  ])('rejects with %s', (code, record) => {
    const result = decodeEnvelope(record, rules);
    expect(result.ok ? 'ok' : result.code).toBe(code);
  });
});
