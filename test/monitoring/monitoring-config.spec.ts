import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../support/env';
import { describeWithTool, findTool } from '../support/needs-tool';
import {
  alertRules,
  dashboardPanels,
  loadYaml,
  metricNames,
  MONITORING,
  usedMetricNames,
} from './monitoring-files';

/** Debian's `prometheus` package ships promtool; .ci/run installs it, a test never does. */
const PROMTOOL = findTool(
  process.env.PROMTOOL_PATH ?? 'promtool',
  'apt-get install prometheus, or set PROMTOOL_PATH',
);

const runPromtool = (promtool: string, ...args: string[]): string =>
  execFileSync(promtool, args, { encoding: 'utf8', stdio: 'pipe' });

/** The runbook's `## <AlertName>` sections, by their GitHub anchor. */
function runbookSections(): Map<string, string> {
  const text = readFileSync(MONITORING.runbook, 'utf8');
  const sections = new Map<string, string>();
  for (const part of text.split(/^## /m).slice(1)) {
    const title = part.slice(0, part.indexOf('\n')).trim();
    sections.set(
      title
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-'),
      part,
    );
  }
  return sections;
}

/** The seed's order (ARCHITECTURE.md section 9): each panel's title matches the next pattern. */
const SEED_ORDER = [
  /oldest unpublished event age/i,
  /oldest unpublished event/i,
  /unpublished events/i,
  /rate of change/i,
  /forecast/i,
  /created-to-published latency/i,
  /attempts per published event/i,
  /failures by reason/i,
  /published more than once/i,
  /lease lost/i,
  /transaction duration/i,
  /connections/i,
  /table size/i,
  /dead .*tuples/i,
  /autovacuum/i,
  /consumer lag/i,
  /duplicate share/i,
  /apply errors per consumer/i,
];

describe('monitoring set-up (deploy/, docs/RUNBOOK.md)', () => {
  describeWithTool(PROMTOOL, 'promtool checks', (promtool) => {
    it('Given the alert rules, when promtool checks them and runs their unit tests, then both pass', () => {
      expect(runPromtool(promtool, 'check', 'rules', MONITORING.alerts)).toMatch(
        /SUCCESS: \d+ rules found/,
      );
      const tests = runPromtool(promtool, 'test', 'rules', MONITORING.alertTests);
      expect(tests).toMatch(/SUCCESS/);
      expect(tests).not.toMatch(/FAILED/);
    });

    it('Given prometheus.yml, when promtool checks it, then it is valid and loads the rules', () => {
      expect(runPromtool(promtool, 'check', 'config', MONITORING.prometheus)).toMatch(
        /SUCCESS: 1 rule files found/,
      );
    });
  });

  it('Given the alert rules, when read, then the runbook cases each have a rule with a severity and a runbook_url to their own section', () => {
    const rules = alertRules();
    const sections = runbookSections();
    const cases = [
      /OldestEventAge/,
      /Forecast/,
      /ParkedEvents/,
      /LeaseLost/,
      /CrashLoop/,
      /BrokerDown/,
      /ConsumerLag/,
      /ApplyErrors/,
      /DeadTuples/,
      /HeldSnapshot/,
    ];
    for (const pattern of cases)
      expect(rules.map((r) => r.alert)).toContainEqual(expect.stringMatching(pattern));
    for (const rule of rules) {
      expect({ rule: rule.alert, severity: rule.labels?.severity }).toEqual({
        rule: rule.alert,
        severity: expect.stringMatching(/^(critical|warning)$/),
      });
      const url = rule.annotations?.runbook_url ?? '';
      const anchor = url.slice(url.indexOf('#') + 1);
      expect({ rule: rule.alert, url }).toEqual({
        rule: rule.alert,
        url: expect.stringMatching(/\/docs\/RUNBOOK\.md#[a-z0-9-]+$/),
      });
      expect({
        rule: rule.alert,
        section: anchor === rule.alert.toLowerCase() && sections.has(anchor),
      }).toEqual({
        rule: rule.alert,
        section: true,
      });
    }
    // ... and no section without its rule.
    expect([...sections.keys()].sort()).toEqual(rules.map((r) => r.alert.toLowerCase()).sort());
  });

  it('Given the runbook, when read, then each section says what it means, how to confirm it, what to do and what not to do', () => {
    for (const [anchor, text] of runbookSections()) {
      const parts = ['**Means.**', '**Confirm.**', '**Do.**', "**Don't.**"].filter(
        (p) => !text.includes(p),
      );
      expect({ anchor, missing: parts }).toEqual({ anchor, missing: [] });
    }
  });

  it('Given the dashboard, when read, then it is valid JSON whose panels follow the seed order, headline first, all on the provisioned data source', () => {
    const panels = dashboardPanels().filter((p) => p.type !== 'row');
    expect(panels[0]).toMatchObject({
      type: 'stat',
      title: expect.stringMatching(/oldest unpublished event/i),
    });
    let at = 0;
    for (const panel of panels) {
      while (at < SEED_ORDER.length && !SEED_ORDER[at]!.test(panel.title)) at++;
      expect({ panel: panel.title, inSeedOrder: at < SEED_ORDER.length }).toEqual({
        panel: panel.title,
        inSeedOrder: true,
      });
    }
    const datasource = loadYaml(MONITORING.datasource) as { datasources: { uid: string }[] };
    const uid = datasource.datasources[0]!.uid;
    for (const panel of panels) {
      expect({ panel: panel.title, uid: panel.datasource?.uid }).toEqual({
        panel: panel.title,
        uid,
      });
      expect(panel.targets?.length).toBeGreaterThan(0);
    }
    const ids = dashboardPanels().map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('Given the rules and the panels, when their PromQL is parsed, then every name they read is a documented metric', () => {
    const documented = readFileSync(join(REPO_ROOT, 'docs/METRICS.md'), 'utf8');
    const series = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
    const undocumented = [...usedMetricNames().keys()].filter(
      (name) => !documented.includes(`\`${name}\``) && !documented.includes(`\`${series(name)}\``),
    );
    expect(undocumented).toEqual([]);
    expect(
      metricNames(
        'sum by (job, le) (rate(a_bucket{job=~"$job",x="y"}[5m])) / ignoring(c) group_left b',
      ),
    ).toEqual(['a_bucket', 'b']);
  });

  it('Given docker-compose.yml, when parsed, then Prometheus and Grafana run with the provisioning files of deploy/, which exist', () => {
    const compose = loadYaml(MONITORING.compose) as {
      services: Record<string, { image?: string; volumes?: string[] }>;
    };
    const { prometheus, grafana } = compose.services;
    expect(prometheus?.image).toMatch(/^prom\/prometheus:/);
    expect(grafana?.image).toMatch(/^grafana\/grafana:/);
    const mounts = [...(prometheus?.volumes ?? []), ...(grafana?.volumes ?? [])];
    expect(mounts).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\.\/deploy\/prometheus\/alerts\.yml:/),
        expect.stringMatching(/^\.\/deploy\/grafana\/provisioning:/),
        expect.stringMatching(/^\.\/deploy\/grafana\/nest-outbox\.json:/),
      ]),
    );
    for (const mount of mounts)
      expect(existsSync(join(REPO_ROOT, mount.split(':')[0]!))).toBe(true);
    const scrape = loadYaml(MONITORING.prometheus) as {
      scrape_configs: { static_configs: { targets: string[] }[] }[];
    };
    const targets = scrape.scrape_configs.flatMap((c) =>
      c.static_configs.flatMap((s) => s.targets),
    );
    for (const target of targets)
      expect(Object.keys(compose.services)).toContain(target.split(':')[0]);
    const provider = loadYaml(MONITORING.dashboards) as {
      providers: { options: { path: string } }[];
    };
    const dashboardMount = mounts.find((m) => m.includes('nest-outbox.json'))!.split(':')[1]!;
    expect(dirname(dashboardMount)).toBe(provider.providers[0]!.options.path);
  });
});
