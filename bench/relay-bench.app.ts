import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsModule } from 'nestjs-cls';
import { OutboxModule, OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { RelayModule, type RelayModuleOptions } from '@nest-outbox/relay';

type Host = TransactionHost<TransactionalAdapterTypeOrm>;

/** A decorated command: conditional update of the aggregate, then its event, one transaction. */
@Injectable()
export class BenchCommands {
  constructor(
    private readonly host: TransactionHost,
    private readonly outbox: OutboxService,
  ) {}

  /** Returns the recorded event's id (resolves once the transaction has committed). */
  @OutboxTransactional()
  async touch(schema: string, id: number): Promise<string> {
    const [rows] = await (this.host as Host).tx.query<[{ version: string }[], number]>(
      `UPDATE "${schema}".items SET version = version + 1 WHERE id = $1 RETURNING version`,
      [id],
    );
    const event = await this.outbox.record({
      eventType: 'item.touched',
      aggregateType: 'item',
      aggregateId: String(id),
      aggregateVersion: Number(rows[0]!.version),
      payload: { id, note: 'x'.repeat(64) },
    });
    return event.eventId;
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
