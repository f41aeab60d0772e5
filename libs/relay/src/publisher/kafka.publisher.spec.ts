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
      // Far longer than the test may take: only the abort can end the publish in time.
      requestTimeout: 60_000,
      connectionTimeout: 60_000,
      retry: { retries: 0 },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new PublishTimeoutError(300)), 300);
    await expect(
      publisher.publish([{ topic: 't', key: 'k', value: '{}', headers: {} }], controller.signal),
    ).rejects.toBeInstanceOf(PublishTimeoutError);
    await publisher.disconnect();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
});
