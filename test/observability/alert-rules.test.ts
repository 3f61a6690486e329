/**
 * The shipped alerting rules (grafana/src/alerts.ts → grafana/alerts/oxmq-alerts.yml): the
 * committed file is what grafana/build.ts writes, Debian's promtool accepts it and passes its
 * unit tests (grafana/alerts/oxmq-alerts.test.yml: for every alert a case that fires and series
 * that stay quiet), every alert reads only documented metrics (or Prometheus's `up`), and each
 * has its section in docs/alerts.md, where its runbook_url points.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALERT_RULES, renderAlertRules } from '../../grafana/src/alerts';
import { checkExpression } from '../../grafana/src/metric-check';
import { parseMetricsContract } from '../../grafana/src/metrics-contract';
import { promtool } from '../helpers/prometheus';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const rulesFile = path.join(repoRoot, 'grafana', 'alerts', 'oxmq-alerts.yml');
const testsFile = path.join(repoRoot, 'grafana', 'alerts', 'oxmq-alerts.test.yml');
const read = (...parts: string[]) => readFileSync(path.join(repoRoot, ...parts), 'utf8');

/** The anchor GitHub and most Markdown renderers give a `## Heading`. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

describe('alerting rules', () => {
  it('are exactly what grafana/build.ts writes (run it after changing grafana/src/alerts.ts)', async () => {
    expect(read('grafana', 'alerts', 'oxmq-alerts.yml')).toBe(await renderAlertRules(rulesFile));
  });

  it('pass promtool check rules and promtool test rules', async () => {
    const checked = await promtool(['check', 'rules', rulesFile]);
    expect(checked.stdout).toContain(`SUCCESS: ${ALERT_RULES.length} rules found`);
    const tested = await promtool(['test', 'rules', testsFile]);
    expect(tested.stdout).toContain('SUCCESS');
  });

  it('each have a case that fires in the unit tests, next to series that must stay quiet', () => {
    const tests = read('grafana', 'alerts', 'oxmq-alerts.test.yml');
    for (const rule of ALERT_RULES) {
      // A firing case: the alert evaluated with at least one expected alert.
      const firing = new RegExp(`alertname: ${rule.alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels:`);
      expect(tests, rule.alert).toMatch(firing);
    }
  });

  it('read only metrics docs/metrics.md lists, or Prometheus’s own up', () => {
    const contract = parseMetricsContract(read('docs', 'metrics.md'));
    const problems = ALERT_RULES.flatMap((rule) =>
      checkExpression(rule.expr, contract)
        .filter((problem) => !problem.startsWith('unknown metric up '))
        .map((problem) => `${rule.alert}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it('each have a section in docs/alerts.md that their runbook_url names', () => {
    const headings = read('docs', 'alerts.md')
      .split('\n')
      .filter((line) => line.startsWith('## '))
      .map((line) => line.slice(3));
    expect(headings.map(anchorOf)).toEqual(ALERT_RULES.map((rule) => rule.anchor));
    expect(headings).toEqual(ALERT_RULES.map((rule) => rule.alert));
  });

  it('are loaded by the example Prometheus configuration', () => {
    expect(read('grafana', 'prometheus.example.yml')).toContain('alerts/oxmq-alerts.yml');
  });
});
