import type { INestApplication } from '@nestjs/common';
import { INBOX_METRICS_REGISTRY } from '@nest-outbox/inbox';
import { createTestSchema, type TestSchema } from '@test/support';
import type { Registry } from 'prom-client';
import { effectsDdl } from './inbox-test.app';
import { kafkaTools } from './inbox-test.kafka';

/** What every inbox integration file sets up: its own schema, Kafka tools, the apps it starts. */
export interface InboxFixture {
  readonly db: TestSchema;
  readonly tools: Awaited<ReturnType<typeof kafkaTools>>;
  /** Apps started by the file's tests; closed in afterAll. */
  readonly apps: INestApplication[];
}

/**
 * Registers the file's beforeAll/afterAll: a schema of its own with the effects table,
 * Kafka tools, and the closing of every app the tests pushed into `apps`.
 * Call it inside `describe`; read the fields inside tests (they are set in beforeAll).
 */
export function useInboxFixture(schemaPrefix: string): InboxFixture {
  let db: TestSchema | undefined;
  let tools: InboxFixture['tools'] | undefined;
  const apps: INestApplication[] = [];
  beforeAll(async () => {
    db = await createTestSchema(schemaPrefix);
    await db.pool.query(effectsDdl(db.name));
    tools = await kafkaTools();
  });
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await tools?.close();
    await db?.drop();
  });
  return {
    get db() {
      if (!db) throw new Error('useInboxFixture: db is set in beforeAll');
      return db;
    },
    get tools() {
      if (!tools) throw new Error('useInboxFixture: tools are set in beforeAll');
      return tools;
    },
    apps,
  };
}

/** The sum of an inbox metric's values (all label sets) in the app's registry. */
export async function inboxMetric(app: INestApplication, name: string): Promise<number> {
  const registry = app.get<Registry>(INBOX_METRICS_REGISTRY);
  const values = (await registry.getSingleMetric(name)?.get())?.values;
  return (values ?? []).reduce((sum, v) => sum + v.value, 0);
}
