import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/env';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- js-yaml ships no types
const yaml = require('js-yaml') as { load(text: string): unknown };

/** deploy/ and docs/ paths of the monitoring set-up. */
export const MONITORING = {
  alerts: join(REPO_ROOT, 'deploy/prometheus/alerts.yml'),
  alertTests: join(REPO_ROOT, 'deploy/prometheus/alerts.test.yml'),
  prometheus: join(REPO_ROOT, 'deploy/prometheus/prometheus.yml'),
  dashboard: join(REPO_ROOT, 'deploy/grafana/nest-outbox.json'),
  datasource: join(REPO_ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yml'),
  dashboards: join(REPO_ROOT, 'deploy/grafana/provisioning/dashboards/nest-outbox.yml'),
  compose: join(REPO_ROOT, 'docker-compose.yml'),
  runbook: join(REPO_ROOT, 'docs/RUNBOOK.md'),
} as const;

/** A YAML file, parsed. */
export function loadYaml(path: string): unknown {
  return yaml.load(readFileSync(path, 'utf8'));
}

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

/** The alerting rules of deploy/prometheus/alerts.yml. */
export function alertRules(): AlertRule[] {
  const file = loadYaml(MONITORING.alerts) as { groups: { rules: AlertRule[] }[] };
  return file.groups.flatMap((g) => g.rules);
}

export interface DashboardPanel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly gridPos: { x: number; y: number; w: number; h: number };
  readonly targets?: { expr: string; refId: string }[];
  readonly datasource?: { uid: string };
}

/** The panels of deploy/grafana/nest-outbox.json, top to bottom, left to right. */
export function dashboardPanels(): DashboardPanel[] {
  const dashboard = JSON.parse(readFileSync(MONITORING.dashboard, 'utf8')) as {
    panels: DashboardPanel[];
  };
  return [...dashboard.panels].sort(
    (a, b) => a.gridPos.y - b.gridPos.y || a.gridPos.x - b.gridPos.x,
  );
}

const NOT_METRICS = new Set(
  (
    'by without on ignoring group_left group_right and or unless bool offset inf nan ' +
    'sum min max avg count stddev stdvar topk bottomk quantile count_values group limitk limit_ratio'
  ).split(' '),
);

/**
 * The metric names a PromQL expression reads: identifiers that are not functions, keywords,
 * label names (in `{...}`, `by (...)`, `on (...)`...), strings or durations.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const name = match[0];
    const after = stripped.slice((match.index ?? 0) + name.length);
    if (/^\s*\(/.test(after) || NOT_METRICS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/** Every metric name the alert rules and the dashboard's panels read, with where it is used. */
export function usedMetricNames(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  const add = (expr: string, where: string) => {
    for (const name of metricNames(expr))
      used.set(name, [...new Set([...(used.get(name) ?? []), where])]);
  };
  for (const rule of alertRules()) add(rule.expr, `rule ${rule.alert}`);
  for (const panel of dashboardPanels())
    for (const target of panel.targets ?? []) add(target.expr, `panel "${panel.title}"`);
  return used;
}

/**
 * The metric names a Prometheus text exposition declares (`# TYPE` lines: a labelled metric
 * never observed has no sample yet), histograms and summaries with their series.
 */
export function exportedMetricNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const typed = /^# TYPE (\S+) (\w+)/.exec(line);
    if (typed) {
      const [, name, type] = typed as unknown as [string, string, string];
      names.add(name);
      if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
    } else if (line && !line.startsWith('#')) names.add(line.split(/[{\s]/, 1)[0]!);
  }
  return names;
}
