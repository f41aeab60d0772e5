import { InvalidOptionsError } from '@nest-outbox/core';
import { loadShippingServiceConfig } from './shipping-service.config';

describe('loadShippingServiceConfig (unit)', () => {
  it('Given an empty environment, then the documented defaults apply', () => {
    expect(loadShippingServiceConfig({})).toMatchObject({
      port: 3001,
      schema: 'shipping',
      orderEventsTopic: 'orders',
      shipmentEventsTopic: 'shipments',
      consumerGroup: 'shipping-service',
      consumerConcurrency: 3,
      consumerSessionTimeoutMs: 30_000,
      relayEmbedded: true,
    });
  });

  it.each([
    ['CONSUMER_SESSION_TIMEOUT_MS', '1000'],
    ['CONSUMER_CONCURRENCY', '0'],
    ['SHIPPING_SCHEMA', 'Shipping'],
    ['KAFKA_CREATE_TOPICS', 'perhaps'],
  ])('Given %s=%s, then start-up fails naming the variable', (name, value) => {
    expect(() => loadShippingServiceConfig({ [name]: value })).toThrow(InvalidOptionsError);
    expect(() => loadShippingServiceConfig({ [name]: value })).toThrow(name);
  });
});
