import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { InboxModuleOptions } from './options/inbox-options.interface';

export const {
  ConfigurableModuleClass: InboxConfigurableModule,
  MODULE_OPTIONS_TOKEN: INBOX_MODULE_OPTIONS,
  OPTIONS_TYPE: INBOX_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: INBOX_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<InboxModuleOptions>()
  .setClassMethodName('forRoot')
  // useClass / useExisting factories implement createInboxOptions(): InboxModuleOptions.
  .setFactoryMethodName('createInboxOptions')
  .build();
