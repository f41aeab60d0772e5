import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsModule } from 'nestjs-cls';
import { OutboxModule, OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { RelayModule, type RelayModuleOptions } from '@nest-outbox/relay';

type Host = TransactionHost<TransactionalAdapterTypeOrm>;

/** A decorated command: conditional update of the aggregate, then its events, one transaction. */
@Injectable()
export class BenchCommands {
  constructor(
    private readonly host: TransactionHost,
    private readonly outbox: OutboxService,
  ) {}

  /**
   * Records `events` events of aggregate `id` (consecutive versions); returns their ids
   * (resolves once the transaction has committed).
   */
  @OutboxTransactional()
  async touch(schema: string, id: number, events = 1): Promise<string[]> {
    const [rows] = await (this.host as Host).tx.query<[{ version: string }[], number]>(
      `UPDATE "${schema}".items SET version = version + $2 WHERE id = $1 RETURNING version`,
      [id, events],
    );
    const first = Number(rows[0]!.version) - events + 1;
    const recorded = [];
    for (let i = 0; i < events; i++)
      recorded.push(
        await this.outbox.record({
          eventType: 'item.touched',
          aggregateType: 'item',
          aggregateId: String(id),
          aggregateVersion: first + i,
          payload: { id, note: 'x'.repeat(64) },
        }),
      );
    return recorded.map((event) => event.eventId);
  }
}

/**
 * Writer (OutboxModule, decorated commands) and relay (RelayModule) in one application; the
 * writer alone with `relay: false` (its notifications on, for a relay in another process).
 */
@Module({})
export class RelayBenchAppModule {
  static register(
    databaseUrl: string,
    schema: string,
    relay: RelayModuleOptions | false,
    poolMax = 8,
  ): DynamicModule {
    return {
      module: RelayBenchAppModule,
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url: databaseUrl, extra: { max: poolMax } }),
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [TypeOrmModule],
              adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
            }),
          ],
        }),
        OutboxModule.forRoot({
          schema,
          tuning: relay ? { table: 'outbox', notifyChannel: false } : { table: 'outbox' },
        }),
        ...(relay ? [RelayModule.forRoot(relay)] : []),
      ],
      providers: [BenchCommands],
    };
  }
}
