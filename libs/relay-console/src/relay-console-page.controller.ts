import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Header } from '@nestjs/common';

const file = (name: string) => readFileSync(join(__dirname, '..', 'static', name), 'utf8');

/** Only this page's own script runs; nothing is framed; no data is cached. */
const CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'";

/** The console page and its script: no data in them, so no credentials needed. @internal */
@Controller('operator')
export class RelayConsolePageController {
  private readonly html = file('console.html');
  private readonly js = file('console.js');

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', CSP)
  @Header('x-content-type-options', 'nosniff')
  @Header('cache-control', 'no-store')
  page(): string {
    return this.html;
  }

  @Get('console.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('x-content-type-options', 'nosniff')
  @Header('cache-control', 'no-store')
  script(): string {
    return this.js;
  }
}
