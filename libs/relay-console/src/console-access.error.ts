import { NestOutboxError } from '@nest-outbox/core';

/** The console was asked to start without a usable access control. @publicApi */
export class ConsoleAccessError extends NestOutboxError {
  constructor(problem: string) {
    super(
      `RelayConsoleModule: ${problem}. Give it auth.bearer.tokens ({ alice: '<a random token of ` +
        `32+ characters>' }; the standalone relay reads RELAY_CONSOLE_TOKENS=alice:<token>,bob:<token>) ` +
        `or auth.mtls (serve HTTPS with requestCert and a client CA; the standalone relay reads ` +
        `RELAY_CONSOLE_TLS_CERT, RELAY_CONSOLE_TLS_KEY and RELAY_CONSOLE_TLS_CA)`,
    );
  }
}
