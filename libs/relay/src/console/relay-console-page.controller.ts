import { Controller, Get, Header } from '@nestjs/common';
import { CONSOLE_PAGE_HTML } from './console-page.html';
import { CONSOLE_PAGE_SCRIPT } from './console-page.script';

/** Only this page's own script runs; nothing is framed; no data is cached. */
const CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'";

/**
 * Serves the console page and its script. They hold no data (the page fetches it with the
 * operator's token), so they are served without credentials.
 * @internal
 */
@Controller('operator')
export class RelayConsolePageController {
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', CSP)
  @Header('x-content-type-options', 'nosniff')
  @Header('cache-control', 'no-store')
  page(): string {
    return CONSOLE_PAGE_HTML;
  }

  @Get('console.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('x-content-type-options', 'nosniff')
  @Header('cache-control', 'no-store')
  script(): string {
    return CONSOLE_PAGE_SCRIPT;
  }
}
