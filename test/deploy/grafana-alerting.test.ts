/**
 * The Grafana-managed copies of OxMQ's alert rules (grafana/src/grafana-alerts.ts →
 * grafana/provisioning/alerting/oxmq-alerts.yaml): the committed file is what grafana/build.ts
 * writes, it holds every rule of ALERT_RULES with the same expression, duration, severity and
 * texts, it points at the provisioned data source and folder, and nothing in it is a `$NAME`
 * that Grafana's provisioning would replace with an environment variable. Grafana itself never
 * loads the file here (no Grafana runs in the tests; docs/deploy.md).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ALERT_RULES } from '../../grafana/src/alerts';
import { grafanaTemplate, renderGrafanaAlertProvisioning } from '../../grafana/src/grafana-alerts';
import { buildDashboards } from '../../grafana/src/index';
import { ALERTS_LINK_URL } from '../../grafana/src/plan';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const file = path.join(repoRoot, 'grafana', 'provisioning', 'alerting', 'oxmq-alerts.yaml');
const readYaml = (...parts: string[]): unknown =>
  parse(readFileSync(path.join(repoRoot, ...parts), 'utf8'));

interface Query {
  refId: string;
  datasourceUid: string;
  model: { expr?: string; type?: string; expression?: string; instant?: boolean };
}
interface GrafanaRule {
  uid: string;
  title: string;
  condition: string;
  data: Query[];
  noDataState: string;
  execErrState: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface Provisioning {
  apiVersion: number;
  groups: { orgId: number; name: string; folder: string; interval: string; rules: GrafanaRule[] }[];
}

const provisioning = readYaml('grafana', 'provisioning', 'alerting', 'oxmq-alerts.yaml');
const { groups } = provisioning as Provisioning;
const rules = groups.flatMap((group) => group.rules);

describe('grafana/provisioning/alerting/oxmq-alerts.yaml', () => {
  it('is exactly what grafana/build.ts writes (run it after changing grafana/src)', async () => {
    expect(readFileSync(file, 'utf8')).toBe(await renderGrafanaAlertProvisioning(file));
  });

  it('holds every alert of ALERT_RULES once, with its expression, duration and severity', () => {
    expect(rules.map((rule) => rule.title)).toEqual(ALERT_RULES.map((rule) => rule.alert));
    for (const alert of ALERT_RULES) {
      const rule = rules.find((r) => r.title === alert.alert)!;
      expect(rule.data[0]?.model.expr, alert.alert).toBe(alert.expr);
      expect(rule.data[0]?.model.instant, alert.alert).toBe(true);
      expect(rule.for, alert.alert).toBe(alert.for);
      expect(rule.labels, alert.alert).toEqual({ severity: alert.severity });
      expect(rule.annotations, alert.alert).toEqual({
        summary: grafanaTemplate(alert.summary),
        description: grafanaTemplate(alert.description),
        runbook_url: `docs/alerts.md#${alert.anchor}`,
      });
    }
  });

  it('fires for every series the expression returns, and treats none as healthy', () => {
    for (const rule of rules) {
      expect(rule.condition, rule.title).toBe('B');
      expect(rule.data.map((q) => q.refId)).toEqual(['A', 'B']);
      expect(rule.data[1]).toMatchObject({
        datasourceUid: '__expr__',
        model: { type: 'math', expression: 'is_number($A)' },
      });
      expect(rule.noDataState, rule.title).toBe('OK');
    }
  });

  it("translates Prometheus's $value into Grafana's value of query A", () => {
    expect(grafanaTemplate('{{ $value | humanizeDuration }} of {{ $labels.queue }}')).toBe(
      '{{ $values.A.Value | humanizeDuration }} of {{ $labels.queue }}',
    );
    const texts = rules.flatMap((rule) => Object.values(rule.annotations));
    expect(texts.filter((text) => /\$value\b/.test(text))).toEqual([]);
  });

  it('gives every rule a unique uid Grafana accepts', () => {
    const uids = rules.map((rule) => rule.uid);
    expect(new Set(uids).size).toBe(uids.length);
    for (const uid of uids) expect(uid).toMatch(/^[a-z0-9-]{1,40}$/);
  });

  it('has no $NAME where Grafana substitutes environment variables', () => {
    // Provisioning expands $NAME in every string except the query models and the annotations
    // (and newer Grafana expands ${NAME} in annotations too).
    const expanded = groups.flatMap((group) => [
      group.name,
      group.folder,
      group.interval,
      ...group.rules.flatMap((rule) => [
        rule.uid,
        rule.title,
        rule.condition,
        rule.for,
        ...Object.values(rule.labels),
        ...rule.data.map((q) => q.datasourceUid),
      ]),
    ]);
    expect(expanded.filter((text) => text.includes('$'))).toEqual([]);
    const annotations = rules.flatMap((rule) => Object.values(rule.annotations));
    expect(annotations.filter((text) => text.includes('${'))).toEqual([]);
  });

  it('reads the provisioned data source and sits in the dashboards folder', () => {
    const datasources = readYaml('grafana', 'provisioning', 'datasources', 'oxmq.yaml') as {
      datasources: { uid: string; type: string }[];
    };
    const prometheus = datasources.datasources.find((d) => d.type === 'prometheus');
    for (const rule of rules) {
      expect(rule.data[0]?.datasourceUid, rule.title).toBe(prometheus?.uid);
    }
    const dashboards = readYaml('grafana', 'provisioning', 'dashboards', 'oxmq.yaml') as {
      providers: { folder: string }[];
    };
    expect(groups.map((group) => group.folder)).toEqual([dashboards.providers[0]?.folder]);
  });
});

describe('the dashboards', () => {
  it("each link to Grafana's alert list, filtered to rules every OxMQ alert's name matches", () => {
    for (const { dashboard } of buildDashboards()) {
      expect(
        dashboard.links?.map((link) => link.url),
        dashboard.uid,
      ).toContain(ALERTS_LINK_URL);
    }
    const filter = /[?&]search=rule:(\w+)/.exec(ALERTS_LINK_URL)?.[1] ?? '';
    expect(filter).not.toBe('');
    for (const rule of ALERT_RULES) expect(rule.alert.startsWith(filter), rule.alert).toBe(true);
  });
});
