import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TransactionHost } from '@nestjs-cls/transactional';
import { sqlExecutorOf } from '@nest-outbox/core/internal';
import { OutboxModule, OutboxService } from '@nest-outbox/outbox';
import { outboxInsertOneStatement } from '../../libs/outbox/src/store/outbox-insert.sql';
import { dataStacks } from '../../test/data-stacks/data-stacks';
import { insertValues, type Command } from './raw-commands';
import { benchEvent, versionOf, type BenchSql } from './write-bench.sql';

/** The six data stacks' variants: `<stack>_lib` and `<stack>_raw`. */
export const STACK_NAMES = ['typeorm', 'prisma', 'drizzle', 'kysely', 'mikro-orm', 'pg'] as const;

/**
 * One stack's application with both commands, on the stack's own client (pool of `poolMax`):
 * - lib: `outbox.transaction()` (what `@OutboxTransactional()` runs): the UPDATE through the
 *   stack's transaction object, then `outbox.record()`;
 * - raw: the stack's own transaction (`TransactionHost.withTransaction`) sending the same
 *   UPDATE and the library's INSERT by hand through the same ORM call.
 */
export async function startStack(
  stackName: string,
  options: { databaseUrl: string; poolMax: number },
  sql: BenchSql,
): Promise<{ lib: Command; raw: Command; close: () => Promise<void> }> {
  const stack = dataStacks(options.databaseUrl, options.poolMax).find((s) => s.name === stackName)!;
  @Module({
    imports: [
      ...(stack.imports() as DynamicModule[]),
      OutboxModule.forRoot({ schema: sql.schema, tuning: { notifyChannel: false } }),
    ],
  })
  class StackBenchModule {}
  const app = await NestFactory.createApplicationContext(StackBenchModule, { logger: ['error'] });
  const outbox = app.get(OutboxService);
  const host = app.get(TransactionHost);
  const table = `"${sql.schema}"."outbox"`;
  const insert = outboxInsertOneStatement(table);
  const update = async (id: number, from: string, to: string) =>
    versionOf(await sqlExecutorOf(host.tx).query<{ version: string }>(sql.update, [id, to, from]));
  const lib: Command = (id, from, to) =>
    outbox.transaction(async () => {
      const version = await update(id, from, to);
      await outbox.record({ ...benchEvent(id, to), aggregateVersion: version });
    });
  const raw: Command = (id, from, to) =>
    host.withTransaction(async () => {
      const version = await update(id, from, to);
      const values = insertValues(table, id, to, version);
      await sqlExecutorOf(host.tx).query(insert.text, values, insert.name);
    });
  const close = async () => {
    await app.close();
    await stack.close?.();
  };
  return { lib, raw, close };
}
