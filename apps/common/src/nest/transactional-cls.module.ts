import type { DynamicModule } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsModule } from 'nestjs-cls';

/**
 * The `ClsModule` registration `@OutboxTransactional()` and `TransactionHost.tx` need: a
 * global CLS with the transactional plugin over the default TypeORM data source.
 */
export function transactionalClsModule(): DynamicModule {
  return ClsModule.forRoot({
    global: true,
    plugins: [
      new ClsPluginTransactional({
        imports: [TypeOrmModule],
        adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
      }),
    ],
  });
}
