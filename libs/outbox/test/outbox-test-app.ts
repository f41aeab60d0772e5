import type { DynamicModule, ModuleMetadata, Provider, Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsModule } from 'nestjs-cls';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { DATABASE_URL } from '@test/support';
import { OutboxModule, outboxSchemaSql, type OutboxModuleOptions } from '@nest-outbox/outbox';

/** The TypeORM + nestjs-cls setup every application using the outbox registers. */
export function persistenceImports(connectionName?: string): DynamicModule[] {
  return [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url: DATABASE_URL,
      name: connectionName,
      extra: { max: 8 },
      retryAttempts: 1,
    }),
    ClsModule.forRoot({
      global: true,
      plugins: [
        new ClsPluginTransactional({
          connectionName,
          imports: [TypeOrmModule],
          adapter: new TransactionalAdapterTypeOrm({
            dataSourceToken: getDataSourceToken(connectionName),
          }),
        }),
      ],
    }),
  ];
}

/** Creates `schema.table` (the outbox) and `schema.orders` (a business table). */
export async function createTables(pool: Pool, schema: string, table = 'outbox'): Promise<void> {
  for (const statement of outboxSchemaSql({ schema, table })) await pool.query(statement);
  await pool.query(
    `CREATE TABLE IF NOT EXISTS "${schema}".orders (id text PRIMARY KEY, status text NOT NULL, version bigint NOT NULL DEFAULT 0, note text)`,
  );
}

/** An initialised testing module: persistence + OutboxModule.forRoot(options) + extras. */
export async function createOutboxApp(
  outbox: OutboxModuleOptions | DynamicModule,
  metadata: Pick<ModuleMetadata, 'providers' | 'controllers' | 'imports'> & {
    providers?: Provider[];
    controllers?: Type[];
  } = {},
): Promise<TestingModule> {
  const outboxModule = 'module' in outbox ? outbox : OutboxModule.forRoot(outbox);
  const moduleRef = await Test.createTestingModule({
    imports: [...persistenceImports(), outboxModule, ...(metadata.imports ?? [])],
    providers: metadata.providers ?? [],
    controllers: metadata.controllers ?? [],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

/** The data source of a testing module (default connection). */
export function dataSourceOf(moduleRef: TestingModule): DataSource {
  return moduleRef.get(DataSource);
}
