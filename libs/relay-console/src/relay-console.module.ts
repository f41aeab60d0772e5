import { Module, type DynamicModule } from '@nestjs/common';
import { OperatorAuthGuard } from './operator-auth.guard';
import { RelayConsoleController } from './relay-console.controller';
import { RelayConsolePageController } from './relay-console-page.controller';
import { resolveConsoleAuth, type RelayConsoleOptions } from './relay-console.options';
import { CONSOLE_AUTH, CONSOLE_PRESSURE } from './relay-console.constants';

/**
 * The relay's operator console over HTTP: the operator actions, pause and resume, backlog and
 * pressure under `/operator/api`, and a page at `/operator`. Every action runs behind bearer
 * tokens or mTLS and is audited; without an access control the app does not start.
 * @publicApi
 */
@Module({})
export class RelayConsoleModule {
  static register(options: RelayConsoleOptions): DynamicModule {
    return {
      module: RelayConsoleModule,
      imports: [options.relay],
      controllers: [RelayConsoleController, RelayConsolePageController],
      providers: [
        // Validated as a provider, so the application's start-up fails with the typed error.
        { provide: CONSOLE_AUTH, useFactory: () => resolveConsoleAuth(options.auth) },
        ...(options.pressure ? [{ provide: CONSOLE_PRESSURE, useValue: options.pressure }] : []),
        OperatorAuthGuard,
      ],
    };
  }
}
