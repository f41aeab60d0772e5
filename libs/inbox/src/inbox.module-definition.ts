import { ConfigurableModuleBuilder, type Provider } from '@nestjs/common';
import { getTransactionHostToken } from '@nestjs-cls/transactional';
import { InvalidOptionsError } from '@nest-outbox/core';
import {
  INBOX_METRICS_REGISTRY,
  INBOX_MODULE,
  INBOX_OPTIONS,
  INBOX_TRANSACTION_HOST,
} from './inbox.constants';
import { InboxMetrics, inboxModuleMetrics } from './metrics/inbox.metrics';
import type { InboxModuleExtras, InboxModuleOptions } from './options/inbox-options.interface';
import { resolveInboxOptions, type ResolvedInboxOptions } from './options/inbox-options.resolver';

/** The providers that depend on the extras: options, transaction host, metrics. */
function extraProviders(extras: InboxModuleExtras): Provider[] {
  return [
    {
      provide: INBOX_OPTIONS,
      useFactory: (options: InboxModuleOptions) =>
        resolveInboxOptions(options, extras.connectionName),
      inject: [MODULE_OPTIONS_TOKEN],
    },
    {
      provide: INBOX_TRANSACTION_HOST,
      useFactory: (host: unknown) => {
        if (host) return host;
        throw new InvalidOptionsError(
          INBOX_MODULE,
          'connectionName',
          `(${JSON.stringify(extras.connectionName ?? null)}) names no TransactionHost: register ` +
            'ClsModule.forRoot({ global: true, plugins: [new ClsPluginTransactional({ ' +
            'connectionName, imports: [TypeOrmModule], adapter: new TransactionalAdapterTypeOrm(' +
            '{ dataSourceToken }) })] }) in the application',
        );
      },
      inject: [{ token: getTransactionHostToken(extras.connectionName), optional: true }],
    },
    {
      provide: InboxMetrics,
      // prom-client is loaded here, only when metrics are on (an optional peer).
      useFactory: (options: ResolvedInboxOptions) => {
        const { make, registry } = inboxModuleMetrics(options.metrics);
        return new InboxMetrics(
          registry,
          options.metrics === false ? '' : options.metrics.prefix,
          make,
        );
      },
      inject: [INBOX_OPTIONS],
    },
    {
      provide: INBOX_METRICS_REGISTRY,
      // `undefined` with `metrics: false` or without prom-client: no registry to scrape.
      useFactory: (metrics: InboxMetrics) => metrics.registry,
      inject: [InboxMetrics],
    },
  ];
}

/** @internal */
export const {
  ConfigurableModuleClass: InboxConfigurableModule,
  MODULE_OPTIONS_TOKEN,
  OPTIONS_TYPE: INBOX_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: INBOX_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<InboxModuleOptions>({ moduleName: 'Inbox' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createInboxOptions')
  .setExtras<InboxModuleExtras>(
    { isGlobal: true, connectionName: undefined },
    (definition, extras) => ({
      ...definition,
      global: extras.isGlobal !== false,
      providers: [...(definition.providers ?? []), ...extraProviders(extras)],
      exports: [
        ...(definition.exports ?? []),
        INBOX_OPTIONS,
        INBOX_TRANSACTION_HOST,
        INBOX_METRICS_REGISTRY,
        InboxMetrics,
      ],
    }),
  )
  .build();
