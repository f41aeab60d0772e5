import type { Registry } from 'prom-client';

/** The `content-type` of Prometheus' text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The metrics of several registries (the service's, each library's) as one scrape. */
export async function prometheusText(
  registries: readonly (Registry | undefined)[],
): Promise<string> {
  const present = registries.filter((r): r is Registry => r !== undefined);
  const texts = await Promise.all(present.map((r) => r.metrics()));
  return texts.join('\n');
}
