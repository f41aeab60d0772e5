import { createServer, type Socket } from 'node:net';
import { logLevel } from 'kafkajs';
import { PublishTimeoutError } from '../errors/publish-timeout.error';
import { KafkaPublisher } from './kafka.publisher';

describe('KafkaPublisher timeout', () => {
  it('cancels a publish on abort: it rejects at once with the timeout error and drops the producer', async () => {
    // A "broker" that accepts connections and never answers.
    const sockets: Socket[] = [];

    const server = createServer((socket) => {
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const publisher = new KafkaPublisher({
      brokers: [`127.0.0.1:${port}`],
      logLevel: logLevel.NOTHING,
      requestTimeout: 1500,
      connectionTimeout: 1500,
      retry: { retries: 0 },
    });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new PublishTimeoutError(300)), 300);
    await expect(
      publisher.publish([{ topic: 't', key: 'k', value: '{}', headers: {} }], controller.signal),
    ).rejects.toBeInstanceOf(PublishTimeoutError);
    expect(Date.now() - started).toBeLessThan(2000);
    await publisher.disconnect();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
});
