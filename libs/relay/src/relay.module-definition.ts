import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { RelayModuleExtras, RelayModuleOptions } from './options/relay-options.interface';

/** @internal */
export const {
  ConfigurableModuleClass: RelayConfigurableModule,
  MODULE_OPTIONS_TOKEN: RELAY_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<RelayModuleOptions>()
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createRelayOptions')
  .setExtras<RelayModuleExtras>({ isGlobal: true }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal ?? true,
  }))
  .build();
