import { resolveRelayOptions } from '../options/relay-options.resolver';
import type { RelayModuleOptions } from '../options/relay-options.interface';

const base = { connection: 'postgres://x', routing: { defaultTopic: 'orders' } };
const resolve = (o: Partial<RelayModuleOptions>) =>
  resolveRelayOptions({ ...base, ...o } as RelayModuleOptions);

describe("broker 'rabbitmq' wiring", () => {
  it('resolves the RabbitMQ connection with its defaults and needs no kafka', () => {
    const o = resolve({ broker: 'rabbitmq', rabbitmq: { url: 'amqp://guest:guest@h:5672' } });
    expect(o).toMatchObject({
      broker: 'rabbitmq',
      rabbitmq: { url: 'amqp://guest:guest@h:5672', exchange: '', maxMessageBytes: 16777216 },
    });
  });

  it('refuses a missing url, a kafka config beside it, and rabbitmq without the broker, saying what to do', () => {
    expect(() => resolve({ broker: 'rabbitmq' })).toThrow(/rabbitmq\.url.*amqp:\/\//);
    expect(() =>
      resolve({
        broker: 'rabbitmq',
        rabbitmq: { url: 'amqp://h' },
        kafka: { brokers: ['k:9092'] },
      }),
    ).toThrow(/kafka.*remove it/);
    expect(() =>
      resolve({ kafka: { brokers: ['k:9092'] }, rabbitmq: { url: 'amqp://h' } }),
    ).toThrow(/rabbitmq.*broker: 'rabbitmq'/);
  });

  it('says how to install amqplib when it is missing', () => {
    jest.isolateModules(() => {
      jest.doMock('amqplib', () => {
        throw Object.assign(new Error("Cannot find module 'amqplib'"), {
          code: 'MODULE_NOT_FOUND',
        });
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the mock
      const { loadAmqplib } = require('./amqplib.loader') as { loadAmqplib: () => unknown };
      expect(loadAmqplib).toThrow(
        /option "broker" needs the optional peer dependency .*npm i amqplib@\^2/,
      );
    });
  });
});
