import { InvalidOptionsError } from '@nest-outbox/core';
import { loadOrderServiceConfig } from './order-service.config';

describe('loadOrderServiceConfig (unit)', () => {
  it('Given an empty environment, then the documented defaults apply', () => {
    expect(loadOrderServiceConfig({})).toMatchObject({
      port: 3000,
      schema: 'orders',
      kafkaBrokers: ['127.0.0.1:9092'],
      orderEventsTopic: 'orders',
      relayEmbedded: true,
      reconcileIntervalMs: 60_000,
    });
  });

  it('Given variables, then they are read and trimmed', () => {
    expect(
      loadOrderServiceConfig({
        PORT: '8080',
        ORDERS_SCHEMA: 'shop_orders',
        KAFKA_BROKERS: 'a:9092, b:9092',
        RELAY_EMBEDDED: 'false',
        SHIPPING_URL: 'http://shipping:3001/',
      }),
    ).toMatchObject({
      port: 8080,
      schema: 'shop_orders',
      kafkaBrokers: ['a:9092', 'b:9092'],
      relayEmbedded: false,
      shippingUrl: 'http://shipping:3001',
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['RELAY_EMBEDDED', 'maybe'],
    ['ORDERS_SCHEMA', 'Orders; drop'],
    ['RELAY_LEASE_MS', '10'],
  ])('Given %s=%s, then start-up fails naming the variable', (name, value) => {
    expect(() => loadOrderServiceConfig({ [name]: value })).toThrow(InvalidOptionsError);
    expect(() => loadOrderServiceConfig({ [name]: value })).toThrow(name);
  });
});
