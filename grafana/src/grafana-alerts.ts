/**
 * The alerting rules of grafana/src/alerts.ts as Grafana-managed alert rules, in Grafana's file
 * provisioning format: grafana/build.ts writes them to
 * grafana/provisioning/alerting/oxmq-alerts.yaml, next to the Prometheus rules file, from the
 * same ALERT_RULES, so the two cannot drift apart. Use one of the two for notifications: the
 * Prometheus rules through an Alertmanager, these through Grafana's contact points.
 *
 * Each rule runs the Prometheus expression as an instant query (A) and fires for every series
 * it returns, as Prometheus does: the expressions end in a comparison that drops the quiet
 * series, and the condition (B) is true for any number that is left, even 0 (`up == 0`). An
 * empty result is a healthy system, not missing data, hence `noDataState: OK`.
 */
import * as prettier from 'prettier';
import { stringify } from 'yaml';
import { ALERT_RULES, type AlertRule } from './alerts';

/** The uid of the data source grafana/provisioning/datasources/oxmq.yaml declares. */
export const PROMETHEUS_DATASOURCE_UID = 'oxmq-prometheus';
/** The folder grafana/provisioning/dashboards/oxmq.yaml puts the dashboards in. */
export const ALERT_FOLDER = 'OxMQ';
/** Grafana evaluates a group at a multiple of 10s; Prometheus evaluates the rules every 15s. */
export const ALERT_GROUP_INTERVAL = '1m';

/** e.g. OxmqQueueWithoutWorker → oxmq-queue-without-worker (Grafana uids: 40 characters). */
export function grafanaRuleUid(alert: string): string {
  const words = alert.replace(/^Oxmq/, '').replace(/([a-z0-9])([A-Z])/g, '$1-$2');
  return `oxmq-${words.toLowerCase()}`;
}

/**
 * A Prometheus annotation template as Grafana reads it: Grafana's `$value` is a text listing
 * every query's value, the number of query A is `$values.A.Value`. `$labels` is the same.
 */
export function grafanaTemplate(text: string): string {
  return text.replace(/\$value\b/g, '$values.A.Value');
}

function grafanaRule(rule: AlertRule): object {
  return {
    uid: grafanaRuleUid(rule.alert),
    title: rule.alert,
    condition: 'B',
    data: [
      {
        refId: 'A',
        relativeTimeRange: { from: 600, to: 0 },
        datasourceUid: PROMETHEUS_DATASOURCE_UID,
        model: {
          refId: 'A',
          datasource: { type: 'prometheus', uid: PROMETHEUS_DATASOURCE_UID },
          expr: rule.expr,
          instant: true,
          range: false,
        },
      },
      {
        refId: 'B',
        relativeTimeRange: { from: 0, to: 0 },
        datasourceUid: '__expr__',
        model: {
          refId: 'B',
          datasource: { type: '__expr__', uid: '__expr__' },
          type: 'math',
          expression: 'is_number($A)',
        },
      },
    ],
    noDataState: 'OK',
    execErrState: 'Error',
    for: rule.for,
    labels: { severity: rule.severity },
    annotations: {
      summary: grafanaTemplate(rule.summary),
      description: grafanaTemplate(rule.description),
      runbook_url: `docs/alerts.md#${rule.anchor}`,
    },
    isPaused: false,
  };
}

export function grafanaAlertProvisioning(): object {
  return {
    apiVersion: 1,
    groups: [
      {
        orgId: 1,
        name: 'oxmq',
        folder: ALERT_FOLDER,
        interval: ALERT_GROUP_INTERVAL,
        rules: ALERT_RULES.map(grafanaRule),
      },
    ],
  };
}

/** The file as grafana/build.ts writes it to `file`, formatted by the repository's Prettier. */
export async function renderGrafanaAlertProvisioning(file: string): Promise<string> {
  const header = [
    '# OxMQ alert rules for Grafana (file provisioning): written by grafana/build.ts from',
    '# grafana/src/alerts.ts (edit there). Needs the data source of ../datasources/oxmq.yaml.',
    '',
  ].join('\n');
  const options = (await prettier.resolveConfig(file)) ?? {};
  const text = header + stringify(grafanaAlertProvisioning(), { lineWidth: 0 });
  return prettier.format(text, { ...options, filepath: file, parser: 'yaml' });
}
