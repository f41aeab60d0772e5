import { ConfigurableModuleBuilder, type Provider } from '@nestjs/common';
import { getTransactionHostToken } from '@nestjs-cls/transactional';
import { InvalidOptionsError } from '@nest-outbox/core';
import { Registry } from 'prom-client';
import {
  INBOX_METRICS_REGISTRY,
  INBOX_MODULE,
  INBOX_OPTIONS,
  INBOX_TRANSACTION_HOST,
} from './inbox.constants';
import { InboxMetrics } from './metrics/inbox.metrics';
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
      provide: INBOX_METRICS_REGISTRY,
      useFactory: (options: ResolvedInboxOptions) =>
        (options.metrics !== false && options.metrics.registry) || new Registry(),
      inject: [INBOX_OPTIONS],
    },
    {
      provide: InboxMetrics,
      useFactory: (options: ResolvedInboxOptions, registry: Registry) =>
        // metrics: false: counted on a registry nobody sees.
        options.metrics === false
          ? new InboxMetrics(new Registry())
          : new InboxMetrics(registry, options.metrics.prefix),
      inject: [INBOX_OPTIONS, INBOX_METRICS_REGISTRY],
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
  // useClass / useExisting factories implement createInboxOptions(): InboxModuleOptions.
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
