/**
 * Child-process entry: a hybrid app whose inbox handler (topic INBOX_TOPIC, group INBOX_GROUP,
 * schema INBOX_SCHEMA) is served by Nest's plain ServerKafka, started the way the README used to
 * (`startAllMicroservices()` before `listen()`). Prints PLAIN_STARTED if it ever starts.
 */
import { NestFactory } from '@nestjs/core';
import { Transport } from '@nestjs/microservices';
import { buildAppModule, consumerOptions } from './inbox-test.app';

async function main(): Promise<void> {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  const o = {
    schema: env('INBOX_SCHEMA'),
    topics: [env('INBOX_TOPIC')],
    groupId: env('INBOX_GROUP'),
  };
  const app = await NestFactory.create(buildAppModule(o), { logger: ['error'] });
  app.connectMicroservice({ transport: Transport.KAFKA, options: consumerOptions(o) });
  await app.startAllMicroservices();
  await app.listen(0, '127.0.0.1');
  process.stdout.write('PLAIN_STARTED\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
  process.exit(1);
});
