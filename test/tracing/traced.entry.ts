/* eslint-disable @typescript-eslint/no-require-imports -- the app must load after the instrumentations */
import { resolve } from 'node:path';
import { startChildTracing } from './child-tracing';

/**
 * Runs a sample app (`SAMPLE_ENTRY`) with OpenTelemetry set up first, the way a
 * `--require ./tracing` preload does, reporting its spans to `OTEL_SPANS_FILE`.
 */
const entry = process.env.SAMPLE_ENTRY;
const file = process.env.OTEL_SPANS_FILE;
if (!entry || !file) throw new Error('SAMPLE_ENTRY and OTEL_SPANS_FILE must be set');
startChildTracing(file, process.env.OTEL_SERVICE_NAME ?? entry);
require(resolve(entry));
