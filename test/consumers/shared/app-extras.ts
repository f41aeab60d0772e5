import type { ModuleMetadata } from '@nestjs/common';

/** What an app adds to the wiring (its health check, for example). */
export type AppExtras = Pick<ModuleMetadata, 'imports' | 'controllers' | 'providers'>;
