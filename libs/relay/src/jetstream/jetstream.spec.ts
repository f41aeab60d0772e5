import { Test } from '@nestjs/testing';
import { InvalidOptionsError } from '@nest-outbox/core';
import type { RelayModuleOptions } from '../options/relay-options.interface';
import { resolveRelayOptions } from '../options/relay-options.resolver';
import { RELAY_PUBLISHER } from '../relay.constants';
import { RelayModule } from '../relay.module';
import { aggregateToken, eventSubject } from './jetstream-subject';
import { jetStreamError } from './jetstream-publish.error';
import { classifyKafkaError } from '../errors/error-classifier';
import { NatsJetStreamPublisher } from './nats-jetstream.publisher';

const base: RelayModuleOptions = {
  connection: 'postgres://postgres@127.0.0.1:5432/postgres',
  broker: 'nats-jetstream',
  nats: { servers: '127.0.0.1:4222' },
  routing: { defaultTopic: 'events' },
};

describe('RelayModule option broker nats-jetstream', () => {
  it('is kafka by default, and nats-jetstream takes nats as the connection, reconnecting forever', () => {
    expect(
      resolveRelayOptions({
        ...base,
        broker: undefined,
        nats: undefined,
        kafka: { brokers: ['b:9092'] },
      }).broker,
    ).toBe('kafka');
    expect(resolveRelayOptions(base)).toMatchObject({
      broker: 'nats-jetstream',
      nats: { servers: ['127.0.0.1:4222'], maxReconnectAttempts: -1 },
    });
  });

  it.each<[string, Partial<RelayModuleOptions>, RegExp]>([
    ['an unknown broker', { broker: 'mqtt' as never }, /option "broker" .*kafka.*nats-jetstream/],
    ['no nats connection', { nats: undefined }, /option "nats" is required: give \{ servers/],
    ['empty servers', { nats: { servers: [] } }, /option "nats.servers" must be/],
    [
      'a kafka connection',
      { kafka: { brokers: ['b:9092'] } },
      /option "kafka" is a Kafka setting: remove it/,
    ],
    ['a Kafka client', { client: 'platformatic' }, /option "client" is a Kafka setting/],
    [
      'compression',
      { tuning: { compression: 'gzip' } },
      /option "tuning.compression" is a Kafka setting/,
    ],
    [
      'nats with the kafka broker',
      { broker: 'kafka', kafka: { brokers: ['b:9092'] } },
      /option "nats" is a NATS setting/,
    ],
  ])('refuses %s at start-up, saying what to do', (_, more, message) => {
    const resolve = () => resolveRelayOptions({ ...base, ...more });
    expect(resolve).toThrow(InvalidOptionsError);
    expect(resolve).toThrow(message);
  });

  it('makes the JetStream publisher the module uses', async () => {
    const ref = await Test.createTestingModule({
      imports: [RelayModule.forRoot({ ...base, tuning: { autoStart: false } })],
    }).compile();
    expect(ref.get(RELAY_PUBLISHER)).toBeInstanceOf(NatsJetStreamPublisher);
    await ref.close();
  });

  it('says how to install the NATS client when it is missing', () => {
    jest.isolateModules(() => {
      jest.doMock('@nats-io/jetstream', () => {
        throw Object.assign(new Error("Cannot find module '@nats-io/jetstream'"), {
          code: 'MODULE_NOT_FOUND',
        });
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the mock
      const { loadNatsJetStream } = require('./nats-jetstream.loader') as {
        loadNatsJetStream: () => unknown;
      };
      expect(loadNatsJetStream).toThrow(
        /option "broker" needs the optional peer dependency .*run "npm i @nats-io\/jetstream@\^3"/,
      );
    });
  });
});

describe('JetStream subjects and errors', () => {
  it('keeps plain ids as one token and percent-encodes whatever could split or widen a subject', () => {
    expect(aggregateToken('0193a6c4-7b1e-7c3a-9d2f-1a2b3c4d5e6f')).toBe(
      '0193a6c4-7b1e-7c3a-9d2f-1a2b3c4d5e6f',
    );
    for (const id of ['a.b', '*', '>', 'a b', 'ключ', '%41', '😀', 'nul\u0000'])
      expect(decodeURIComponent(aggregateToken(id))).toBe(id);
    expect(aggregateToken('a.b *>')).toBe('a%2Eb%20%2A%3E');
    expect(eventSubject('orders.v1', 'o-1')).toBe('orders.v1.o-1');
  });

  it.each([
    ['an empty aggregate id', 'orders', '', /aggregate_id is empty/],
    ['an empty topic token', 'orders..v1', 'a', /empty NATS subject token/],
    ['a huge aggregate id', 'orders', 'x'.repeat(2000), /over .* bytes/],
  ])('refuses %s as unencodable', (_, topic, id, message) => {
    expect(() => eventSubject(topic, id)).toThrow(message);
  });

  it('classifies no responders and JetStream API refusals as permanent, anything else as transient', () => {
    const noResponders = Object.assign(new Error('jetstream is not enabled'), {
      cause: Object.assign(new Error('no responders'), { isNoResponders: () => true }),
    });
    const tooLarge = Object.assign(new Error('message size exceeds maximum allowed'), {
      code: 10054,
      apiError: () => ({}),
    });
    const timeout = Object.assign(new Error('timeout'), { name: 'TimeoutError' });
    expect(classifyKafkaError(jetStreamError(noResponders, 's.1'))).toBe('permanent');
    expect(jetStreamError(tooLarge, 's.1').type).toBe('MESSAGE_TOO_LARGE');
    expect(classifyKafkaError(jetStreamError(timeout, 's.1'))).toBe('transient');
  });
});
