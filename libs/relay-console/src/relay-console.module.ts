import { Module, type DynamicModule } from '@nestjs/common';
import { OperatorAuthGuard } from './operator-auth.guard';
import { RelayConsoleController } from './relay-console.controller';
import { RelayConsolePageController } from './relay-console-page.controller';
import { resolveConsoleAuth, type RelayConsoleOptions } from './relay-console.options';
import { CONSOLE_AUTH, CONSOLE_PRESSURE } from './relay-console.constants';

/**
 * The relay's operator console over HTTP: the actions of `RelayOperatorService` plus pause
 * and resume of this relay and its backlog and pressure, under `/operator/api`, and a small
 * page at `/operator`. Every action runs behind bearer tokens or mTLS and is audited (who,
 * what, when, why) in `<table>_relay_audit`. Without an access control the application does
 * not start (`ConsoleAccessError`).
 * @example
 * ```ts
 * const relay = RelayModule.forRoot({ connection, kafka, routing });
 * @Module({
 *   imports: [
 *     relay,
 *     RelayConsoleModule.register({ relay, auth: { bearer: { tokens: { alice: process.env.ALICE_TOKEN! } } } }),
 *   ],
 * })
 * export class AppModule {}
 * ```
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
