import { DATABASE_URL, KAFKA_BROKERS, spawnTs, waitFor, type TsChild } from '@test/support';

/** Starts libs/relay/test/relay-child.ts on a schema, waiting until its loop runs. */
export async function spawnRelay(
  schema: string,
  topic: string,
  env: Record<string, string> = {},
): Promise<TsChild> {
  const child = spawnTs('libs/relay/test/relay-child.ts', {
    DATABASE_URL,
    KAFKA_BROKERS: KAFKA_BROKERS.join(','),
    OUTBOX_SCHEMA: schema,
    OUTBOX_TABLE: 'outbox',
    RELAY_DEFAULT_TOPIC: topic,
    RELAY_BATCH_SIZE: '100',
    RELAY_LEASE_MS: '2000',
    RELAY_PUBLISH_TIMEOUT_MS: '1000',
    RELAY_BACKOFF_BASE_MS: '100',
    RELAY_BACKOFF_CAP_MS: '1000',
    RELAY_POLL_MIN_MS: '20',
    RELAY_POLL_MAX_MS: '200',
    RELAY_RETENTION_MS: '0',
    ...env,
  });
  if (!env.RELAY_FAULT) await child.waitForOutput('RELAY READY', 60_000);
  return child;
}

/** Waits until the child has exited (a fault child kills itself). */
export async function waitForExit(child: TsChild, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    'child exit',
    () => child.process.exitCode !== null || child.process.signalCode !== null,
    {
      timeoutMs,
    },
  ).catch((error: unknown) => {
    throw new Error(
      `${(error as Error).message}\n--- child output ---\n${child.output().slice(-3000)}`,
    );
  });
}

/** The event ids of the batch a fault child died in. */
export function faultIds(child: TsChild): string[] {
  const match = /FAULT \S+ ids=(\S*)/.exec(child.output());
  if (!match) throw new Error(`no FAULT line in child output:\n${child.output().slice(-3000)}`);
  return match[1]!.split(',').filter(Boolean);
}
