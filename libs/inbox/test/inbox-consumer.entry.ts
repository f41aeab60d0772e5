/**
 * Child-process entry for the SIGKILL test: a hybrid app consuming INBOX_TOPIC in group
 * INBOX_GROUP into schema INBOX_SCHEMA. With INBOX_FAULT=kill-after-pg-commit (through
 * the test-only `KillAfterCommitMetrics`) it kills itself right after the PostgreSQL commit of the first chunk that applied an event. With INBOX_HTTP_PORT it also
 * serves `/health` on that port; INBOX_HANDLER=batch makes its handler an `@InboxBatchHandler`.
 */
import { KillAfterCommitMetrics } from './inbox-fault.metrics';
import { startInboxApp } from './inbox-test.app';

async function main(): Promise<void> {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  const app = await startInboxApp({
    schema: env('INBOX_SCHEMA'),
    topics: [env('INBOX_TOPIC')],
    groupId: env('INBOX_GROUP'),
    batchHandler: process.env.INBOX_HANDLER === 'batch',
    ...(process.env.INBOX_FAULT === 'kill-after-pg-commit'
      ? { metrics: new KillAfterCommitMetrics() }
      : {}),
  });
  const port = process.env.INBOX_HTTP_PORT;
  if (port) await app.listen(Number(port), '127.0.0.1');
  process.stdout.write('INBOX_READY\n');
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
  process.exit(1);
});
