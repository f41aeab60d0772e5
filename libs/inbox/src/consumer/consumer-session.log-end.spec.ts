import { Logger } from '@nestjs/common';
import { Registry } from 'prom-client';
import { fakeKafkaConsumer } from '../../test/inbox-unit.fakes';
import { InboxMetrics } from '../metrics/inbox.metrics';
import { ConsumerSession } from './consumer.session';
import { kafkajsConsumerPort } from './kafkajs-consumer.port';

describe('ConsumerSession and the log end kafkajs reports', () => {
  const started = () => {
    const kafka = fakeKafkaConsumer();
    const session = new ConsumerSession(
      kafkajsConsumerPort(kafka.consumer),
      new InboxMetrics(new Registry()),
      new Logger('test'),
    );
    const batch = { topic: 't', partition: 0, highWatermark: '9', batchSize: 1 };
    kafka.emit('START_BATCH_PROCESS', { ...batch, firstOffset: '8', lastOffset: '8' });
    return { ...kafka, session, batch };
  };

  it('never commits past the high watermark of the partition last fetched, whatever finished', async () => {
    const { session, commits } = started();
    const tracker = session.begin('t', 0, 8n);
    session.begin('t', 0, 1003n);
    session.finishAll(tracker, [8n, 1003n]);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '9' }]]);
  });

  it('never commits a batch end kafkajs reports past the log end (a trailing record it filtered)', async () => {
    const { session, commits, emit, batch } = started();
    session.finish(session.begin('t', 0, 8n), 8n);
    emit('END_BATCH_PROCESS', { ...batch, firstOffset: '8', lastOffset: '1005' });
    await session.flush();
    expect(commits.flat().map((c) => c.offset)).toEqual(['9']);
  });
});
