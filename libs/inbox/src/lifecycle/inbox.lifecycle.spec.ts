import { ServerKafka } from '@nestjs/microservices';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { InboxKafkaServer } from '../transport/inbox-kafka.server';
import { refusePlainKafka } from './inbox.lifecycle';

/** A server with handlers registered for these patterns, as Nest does at initialisation. */
function serving<T extends ServerKafka>(server: T, patterns: string[]): T {
  for (const pattern of patterns) server.addHandler(pattern, () => Promise.resolve(), true);
  return server;
}

const options = { client: { brokers: ['127.0.0.1:1'] }, run: { autoCommit: false } };

describe('refusePlainKafka', () => {
  it('Given a plain ServerKafka serving an inbox topic, then it throws InboxMisuseError naming the topic and InboxKafkaServer', () => {
    const plain = serving(new ServerKafka(options), ['orders', 'audit']);

    const refuse = () => refusePlainKafka([plain], ['orders']);

    expect(refuse).toThrow(InboxMisuseError);
    expect(refuse).toThrow(
      /topic\(s\) 'orders' is served by ServerKafka.*app\.connectMicroservice\(\{ strategy: new InboxKafkaServer\(\{\.\.\.same options\.\.\.\}\) \}\)/,
    );
  });

  it('Given an InboxKafkaServer, or a plain ServerKafka with no inbox topic, then it accepts them', () => {
    const inbox = serving(new InboxKafkaServer(options), ['orders']);
    const other = serving(new ServerKafka(options), ['audit']);

    expect(() => refusePlainKafka([inbox, other], ['orders'])).not.toThrow();
  });
});
