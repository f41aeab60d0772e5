import { Global, Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { DataStackFixture } from '@nest-outbox/core/internal';
import {
  TransactionalAdapterKysely,
  TransactionalAdapterMikroOrm,
  TransactionalAdapterPg,
} from '@nest-outbox/core/internal';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterDrizzleOrm } from '@nestjs-cls/transactional-adapter-drizzle-orm';
import { TransactionalAdapterPrisma } from '@nestjs-cls/transactional-adapter-prisma';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { MikroORM, PostgreSqlDriver, type EntityManager } from '@mikro-orm/postgresql';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@prisma/client';
import { sql as drizzleSql } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { Kysely, PostgresDialect, sql as kyselySql } from 'kysely';
import { ClsModule } from 'nestjs-cls';
import { Pool, type PoolClient } from 'pg';
import type { EntityManager as TypeOrmManager } from 'typeorm';

/** The token of the stack's own client, provided globally for the adapter. */
const DB = Symbol('db');

/** nestjs-cls with `adapter`, and a global module providing the stack's client under DB. */
function wiring(provider: Provider, adapter: unknown): DynamicModule[] {
  @Global()
  @Module({ providers: [provider], exports: [DB] })
  class DbModule {}
  const plugin = new ClsPluginTransactional({
    imports: [DbModule],
    adapter: adapter as ConstructorParameters<typeof ClsPluginTransactional>[0]['adapter'],
  });
  return [{ module: DbModule }, ClsModule.forRoot({ global: true, plugins: [plugin] })];
}

/** The six stacks of the contract suites, on `url`, each with a pool of `max` of its own. */
export function dataStacks(url: string, max = 4): DataStackFixture[] {
  const pools: Pool[] = [];
  const pool = () => {
    const p = new Pool({ connectionString: url, max });
    pools.push(p);
    return p;
  };
  /** What the stacks opened outside Nest's lifecycle, closed by the suites' `close()`. */
  const closers: (() => Promise<unknown>)[] = [];
  const closePools = async () => {
    await Promise.all([
      ...pools.splice(0).map((p) => p.end()),
      ...closers.splice(0).map((c) => c()),
    ]);
  };
  const opened = <T>(value: T, close: (value: T) => Promise<unknown>): T => {
    closers.push(() => close(value));
    return value;
  };
  return [
    {
      name: 'typeorm',
      databaseUrl: url,
      imports: () => [
        TypeOrmModule.forRoot({ type: 'postgres', url, extra: { max } }),
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [TypeOrmModule],
              adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
            }),
          ],
        }),
      ],
      execute: (tx, text) => (tx as TypeOrmManager).query(text),
    },
    {
      name: 'prisma',
      databaseUrl: url,
      imports: () =>
        wiring(
          {
            provide: DB,
            useFactory: () =>
              opened(
                new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max }) }),
                (c) => c.$disconnect(),
              ),
          },
          new TransactionalAdapterPrisma({ prismaInjectionToken: DB }),
        ),
      execute: (tx, text) => (tx as PrismaClient).$executeRawUnsafe(text),
      close: closePools,
    },
    {
      name: 'drizzle',
      databaseUrl: url,
      imports: () =>
        wiring(
          { provide: DB, useFactory: () => drizzle(pool()) },
          new TransactionalAdapterDrizzleOrm({ drizzleInstanceToken: DB }),
        ),
      execute: (tx, text) => (tx as NodePgDatabase).execute(drizzleSql.raw(text)),
      close: closePools,
    },
    {
      name: 'kysely',
      databaseUrl: url,
      imports: () =>
        wiring(
          {
            provide: DB,
            useFactory: () =>
              new Kysely<unknown>({ dialect: new PostgresDialect({ pool: pool() }) }),
          },
          new TransactionalAdapterKysely({ kyselyToken: DB }),
        ),
      execute: (tx, text) => kyselySql.raw(text).execute(tx as Kysely<unknown>),
      close: closePools,
    },
    {
      name: 'mikro-orm',
      databaseUrl: url,
      imports: () =>
        wiring(
          {
            provide: DB,
            useFactory: async () =>
              opened(
                await MikroORM.init({
                  driver: PostgreSqlDriver,
                  clientUrl: url,
                  entities: [],
                  discovery: { warnWhenNoEntities: false },
                  pool: { min: 0, max },
                }),
                (orm) => orm.close(),
              ).em,
          },
          new TransactionalAdapterMikroOrm({ entityManagerToken: DB }),
        ),
      execute: (tx, text) => (tx as EntityManager).execute(text),
      close: closePools,
    },
    {
      name: 'pg',
      databaseUrl: url,
      imports: () =>
        wiring({ provide: DB, useFactory: pool }, new TransactionalAdapterPg({ poolToken: DB })),
      execute: (tx, text) => (tx as PoolClient).query(text),
      close: closePools,
    },
  ];
}
