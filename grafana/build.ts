/**
 * Writes grafana/dashboards/*.json, grafana/alerts/oxmq-alerts.yml and
 * grafana/provisioning/alerting/oxmq-alerts.yaml from the sources in grafana/src (the committed
 * files are what users import or provision):
 * `node --import tsx grafana/build.ts`. Refuses to write a
 * dashboard that reads a metric docs/metrics.md does not list, and removes dashboard files no
 * source produces any more. test/observability/dashboards.test.ts fails when the committed
 * files differ from what this writes.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ALERT_RULES, renderAlertRules } from './src/alerts';
import { allPanelExpressions, variableQueries } from './src/index';
import { renderGrafanaAlertProvisioning } from './src/grafana-alerts';
import { checkExpression } from './src/metric-check';
import { parseMetricsContract } from './src/metrics-contract';
import { renderDashboardFiles } from './src/render';

async function main(): Promise<void> {
  const contract = parseMetricsContract(
    readFileSync(path.resolve(__dirname, '..', 'docs', 'metrics.md'), 'utf8'),
  );
  const expressions = [
    ...allPanelExpressions({ prefix: 'bull', queue: 'queue', instance: '.*' }).map(
      (e) => [`${e.dashboard} "${e.panel}" ${e.refId}`, e.template] as const,
    ),
    ...variableQueries().map((v) => [`${v.dashboard} $${v.variable}`, v.selector] as const),
    // `up` is Prometheus's own series, not one of OxMQ's.
    ...ALERT_RULES.filter((rule) => !/\bup\{/.test(rule.expr)).map(
      (rule) => [`alert ${rule.alert}`, rule.expr] as const,
    ),
  ];
  const problems = expressions.flatMap(([where, expr]) =>
    checkExpression(expr, contract).map((problem) => `${where}: ${problem}`),
  );
  if (problems.length > 0)
    throw new Error(`dashboards and alerts not written:\n${problems.join('\n')}`);

  const dir = path.resolve(__dirname, 'dashboards');
  mkdirSync(dir, { recursive: true });
  const files = await renderDashboardFiles(dir);
  for (const stale of readdirSync(dir).filter((f) => f.endsWith('.json') && !files.has(f))) {
    rmSync(path.join(dir, stale));
    process.stdout.write(`removed ${path.join('grafana', 'dashboards', stale)}\n`);
  }
  for (const [file, text] of files) {
    writeFileSync(path.join(dir, file), text);
    process.stdout.write(`wrote ${path.join('grafana', 'dashboards', file)}\n`);
  }
  const alertsDir = path.resolve(__dirname, 'alerts');
  mkdirSync(alertsDir, { recursive: true });
  const alertsFile = path.join(alertsDir, 'oxmq-alerts.yml');
  writeFileSync(alertsFile, await renderAlertRules(alertsFile));
  process.stdout.write(`wrote ${path.join('grafana', 'alerts', 'oxmq-alerts.yml')}\n`);
  const provisioningFile = path.resolve(__dirname, 'provisioning', 'alerting', 'oxmq-alerts.yaml');
  mkdirSync(path.dirname(provisioningFile), { recursive: true });
  writeFileSync(provisioningFile, await renderGrafanaAlertProvisioning(provisioningFile));
  process.stdout.write(`wrote ${path.relative(path.resolve(__dirname, '..'), provisioningFile)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
