import { Module, type DynamicModule } from '@nestjs/common';
import { OperatorAuthGuard } from './operator-auth.guard';
import { RelayConsoleController } from './relay-console.controller';
import { RelayConsolePageController } from './relay-console-page.controller';
import { resolveConsoleAuth, type RelayConsoleOptions } from './relay-console.options';
import { CONSOLE_AUTH, CONSOLE_PRESSURE } from './relay-console.constants';

/**
 * The relay's operator console: actions, pause/resume, backlog and pressure under
 * `/operator/api`, a page at `/operator`; behind bearer tokens or mTLS, audited.
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
        { provide: CONSOLE_AUTH, useFactory: () => resolveConsoleAuth(options.auth) },
        ...(options.pressure ? [{ provide: CONSOLE_PRESSURE, useValue: options.pressure }] : []),
        OperatorAuthGuard,
      ],
    };
  }
}
