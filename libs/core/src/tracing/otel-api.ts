/* eslint-disable @typescript-eslint/no-require-imports -- an optional peer, loaded only if installed */
import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as its types describe it. @publicApi */
export type OtelApi = typeof OpenTelemetryApi;

let loaded: OtelApi | null | undefined;

/**
 * `@opentelemetry/api` when the application installed it (an optional peer of every
 * nest-outbox package), else undefined. Loaded once, on first use: without it nothing
 * is traced and nothing fails.
 * @publicApi
 */
export function otelApi(): OtelApi | undefined {
  if (loaded === undefined) {
    try {
      loaded = require('@opentelemetry/api') as OtelApi;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
