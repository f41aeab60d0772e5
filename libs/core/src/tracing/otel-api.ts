/* eslint-disable @typescript-eslint/no-require-imports -- an optional peer, loaded only if installed */
import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as its types describe it. @publicApi */
export type OtelApi = typeof OpenTelemetryApi;

let loaded: OtelApi | null | undefined;

/** `@opentelemetry/api` when installed (an optional peer), else undefined; loaded once. @publicApi */
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
