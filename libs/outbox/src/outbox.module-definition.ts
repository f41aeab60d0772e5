import { ConfigurableModuleBuilder, type Provider } from '@nestjs/common';
import { getTransactionHostToken } from '@nestjs-cls/transactional';
import { InvalidOptionsError } from '@nest-outbox/core';
import { OUTBOX_OPTIONS, OUTBOX_TRANSACTION_HOST } from './outbox.constants';
import type { OutboxModuleExtras, OutboxModuleOptions } from './outbox-options.interface';
import { resolveOutboxOptions } from './outbox-options.validator';

function extraProviders(extras: OutboxModuleExtras): Provider[] {
  const hostToken = getTransactionHostToken(extras.connectionName);
  return [
    {
      provide: OUTBOX_OPTIONS,
      useFactory: (options: OutboxModuleOptions) => resolveOutboxOptions(options, extras),
      inject: [MODULE_OPTIONS_TOKEN],
    },
    {
      provide: OUTBOX_TRANSACTION_HOST,
      useFactory: (host: unknown) => {
        if (host) return host;
        throw new InvalidOptionsError(
          'OutboxModule',
          'connectionName',
          `(${JSON.stringify(extras.connectionName ?? null)}) names no TransactionHost: register ` +
            'ClsModule.forRoot({ global: true, plugins: [new ClsPluginTransactional({ ' +
            'connectionName, imports, adapter })] }) in the application, with the adapter of ' +
            'your data stack (README: "Choose your stack")',
        );
      },
      inject: [{ token: hostToken, optional: true }],
    },
  ];
}

/** @internal */
export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE, ASYNC_OPTIONS_TYPE } =
  new ConfigurableModuleBuilder<OutboxModuleOptions>({ moduleName: 'Outbox' })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createOutboxOptions')
    .setExtras<OutboxModuleExtras>(
      { connectionName: undefined, isGlobal: true },
      (definition, extras) => ({
        ...definition,
        global: extras.isGlobal ?? true,
        providers: [...(definition.providers ?? []), ...extraProviders(extras)],
      }),
    )
    .build();
