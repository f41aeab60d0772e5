import { Test } from '@nestjs/testing';
import { InvalidOptionsError } from '@nest-outbox/core';
import type { KafkaConfig } from 'kafkajs';
import type { RelayModuleOptions } from '../options/relay-options.interface';
import { resolveRelayOptions } from '../options/relay-options.resolver';
import { KafkaPublisher } from '../publisher/kafka.publisher';
import { RELAY_PUBLISHER } from '../relay.constants';
import { RelayModule } from '../relay.module';
import { platformaticClientOptions } from './platformatic-config';
import { PlatformaticKafkaError, platformaticError } from './platformatic-kafka.error';
import { PlatformaticKafkaPublisher } from './platformatic-kafka.publisher';

const base: RelayModuleOptions = {
  connection: 'postgres://postgres@127.0.0.1:5432/postgres',
  kafka: { brokers: ['127.0.0.1:9092'], clientId: 'relay-a' },
  routing: { defaultTopic: 'events' },
};
const platformatic = (more: Partial<RelayModuleOptions>): RelayModuleOptions => ({
  ...base,
  client: 'platformatic',
  ...more,
});

describe('RelayModule option client', () => {
  it('is kafkajs by default and platformatic when asked', () => {
    expect(resolveRelayOptions(base).client).toBe('kafkajs');
    expect(resolveRelayOptions(platformatic({})).client).toBe('platformatic');
  });

  it('refuses a client it does not know, naming both', () => {
    expect(() => resolveRelayOptions({ ...base, client: 'rdkafka' as never })).toThrow(
      /option "client" .*kafkajs.*platformatic/,
    );
  });

  it.each<[string, Partial<RelayModuleOptions>, RegExp]>([
    [
      'a kafkajs socket factory',
      { kafka: { brokers: ['b:9092'], socketFactory: () => undefined as never } },
      /option "kafka.socketFactory" is a kafkajs setting.*remove it, or use client 'kafkajs'/,
    ],
    [
      'kafkajs retries',
      { kafka: { brokers: ['b:9092'], retry: { retries: 1 } } },
      /option "kafka.retry"/,
    ],
    [
      'brokers as a function',
      { kafka: { brokers: () => ['b:9092'] } },
      /option "kafka.brokers" must be a non-empty array/,
    ],
    [
      'AWS IAM SASL',
      { kafka: { brokers: ['b:9092'], sasl: { mechanism: 'aws' } as never } },
      /option "kafka.sasl.mechanism" "aws" is not offered/,
    ],
    [
      'kafkajs producer settings',
      { tuning: { producer: {} } },
      /option "tuning.producer" is a kafkajs setting/,
    ],
  ])('with client platformatic, refuses %s at start-up', (_, more, message) => {
    expect(() => resolveRelayOptions(platformatic(more))).toThrow(InvalidOptionsError);
    expect(() => resolveRelayOptions(platformatic(more))).toThrow(message);
  });

  it('maps the shared kafka settings to the platformatic client', async () => {
    const config: KafkaConfig = {
      brokers: ['a:9093', 'b:9093'],
      clientId: 'relay-a',
      ssl: true,
      sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' },
      connectionTimeout: 3000,
      requestTimeout: 20_000,
    };
    expect(platformaticClientOptions(config)).toEqual({
      clientId: 'relay-a',
      bootstrapBrokers: ['a:9093', 'b:9093'],
      tls: {},
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'u', password: 'p' },
      connectTimeout: 3000,
      requestTimeout: 20_000,
    });
    const oauth = platformaticClientOptions({
      brokers: ['a:9093'],
      sasl: {
        mechanism: 'oauthbearer',
        oauthBearerProvider: () => Promise.resolve({ value: 't' }),
      },
    });
    expect(oauth.sasl?.mechanism).toBe('OAUTHBEARER');
    expect(await (oauth.sasl?.token as () => Promise<string>)()).toBe('t');
  });

  it.each([
    ['kafkajs', KafkaPublisher],
    ['platformatic', PlatformaticKafkaPublisher],
  ] as const)('makes the %s publisher the module uses', async (client, type) => {
    const ref = await Test.createTestingModule({
      imports: [RelayModule.forRoot({ ...base, client, tuning: { autoStart: false } })],
    }).compile();
    expect(ref.get(RELAY_PUBLISHER)).toBeInstanceOf(type);
    await ref.close();
  });

  it('says how to install @platformatic/kafka when it is missing', () => {
    jest.isolateModules(() => {
      jest.doMock('@platformatic/kafka', () => {
        throw Object.assign(new Error("Cannot find module '@platformatic/kafka'"), {
          code: 'MODULE_NOT_FOUND',
        });
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the mock
      const { loadPlatformaticKafka } = require('./platformatic.loader') as {
        loadPlatformaticKafka: () => unknown;
      };
      // An OptionalPeerMissingError of the isolated module registry.
      expect(loadPlatformaticKafka).toThrow(
        /option "client" needs the optional peer dependency .*run "npm i @platformatic\/kafka@\^1"/,
      );
    });
  });

  it("names the Kafka protocol error of the client's errors and leaves any other error as it is", () => {
    const refused = Object.assign(new Error('Received response with error'), {
      code: 'PLT_KFK_RESPONSE',
      errors: [
        Object.assign(new Error('too large'), {
          code: 'PLT_KFK_PROTOCOL',
          apiId: 'MESSAGE_TOO_LARGE',
        }),
      ],
    });
    const wrapped = platformaticError(refused);
    expect(wrapped).toBeInstanceOf(PlatformaticKafkaError);
    expect(wrapped).toMatchObject({ type: 'MESSAGE_TOO_LARGE', cause: refused });
    const local = new TypeError('not a string');
    expect(platformaticError(local)).toBe(local);
  });
});
