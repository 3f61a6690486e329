/**
 * The OxMQ dashboards, and their expressions with the template variables filled in, for the
 * tests that run them against a real Prometheus (test/observability/).
 */
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { latencyDashboard } from './latency';
import { overviewDashboard } from './overview';
import type { BuiltDashboard } from './plan';
import { queueDashboard } from './queue';
import { workersDashboard } from './workers';

export type { BuiltDashboard } from './plan';

export function buildDashboards(): BuiltDashboard[] {
  return [overviewDashboard(), queueDashboard(), workersDashboard(), latencyDashboard()];
}

/**
 * Values for Grafana's own variables that make the expressions valid PromQL outside Grafana.
 * `$__rate_interval` is at least four scrape intervals in Grafana; 1m suits a 15s scrape.
 */
export const GRAFANA_GLOBALS: Readonly<Record<string, string>> = {
  __rate_interval: '1m',
  __interval: '15s',
  __range: '5m',
};

/** The dashboards' own variables (prefix, queue, instance), plus overrides of GRAFANA_GLOBALS. */
export type VariableValues = Readonly<Record<string, string>>;

/**
 * `$name` and `${name}` replaced by their values. A variable without a value is an error, so
 * no expression reaches Prometheus with a `$` left in it.
 */
export function substituteVariables(expr: string, values: VariableValues): string {
  const all: Record<string, string> = { ...GRAFANA_GLOBALS, ...values };
  return expr.replace(/\$\{(\w+)(?::\w+)?\}|\$(\w+)/g, (_match, braced?: string, bare?: string) => {
    const name = braced ?? bare ?? '';
    const value = all[name];
    if (value === undefined) throw new Error(`no value for $${name} in: ${expr}`);
    return value;
  });
}

export interface PanelExpression {
  /** The dashboard's uid. */
  readonly dashboard: string;
  readonly panel: string;
  readonly panelId: number;
  readonly refId: string;
  /** With the variables substituted. */
  readonly expr: string;
  /** As written in the dashboard. */
  readonly template: string;
  /** When an empty result is the right answer (see Query.emptyWhen in grafana/src/plan.ts). */
  readonly emptyWhen?: string;
}

/** Every panel target of every dashboard, with `values` substituted. */
export function allPanelExpressions(values: VariableValues): PanelExpression[] {
  return buildDashboards().flatMap((built) =>
    queryPanels(built.dashboard).flatMap((panel) =>
      (panel.targets ?? []).map((target) => {
        const template = targetExpr(target);
        const refId = stringField(target, 'refId');
        const emptyWhen = built.emptyWhen.get(`${panel.id ?? ''}/${refId}`);
        return {
          dashboard: built.dashboard.uid ?? '',
          panel: panel.title ?? '',
          panelId: panel.id ?? -1,
          refId,
          expr: substituteVariables(template, values),
          template,
          ...(emptyWhen ? { emptyWhen } : {}),
        };
      }),
    ),
  );
}

export interface VariableQuery {
  readonly dashboard: string;
  readonly variable: string;
  /** Grafana's `label_values(<selector>, <label>)`, as written. */
  readonly query: string;
  readonly selector: string;
  readonly label: string;
}

/** The query variables of every dashboard, split into the selector and the label they list. */
export function variableQueries(): VariableQuery[] {
  return buildDashboards().flatMap((built) =>
    (built.dashboard.templating.list ?? [])
      .filter((variable) => variable.type === 'query')
      .map((variable) => {
        const query = typeof variable.query === 'string' ? variable.query : '';
        const match = /^label_values\((.+),\s*([A-Za-z_][A-Za-z0-9_]*)\)$/.exec(query);
        if (!match?.[1] || !match[2]) {
          throw new Error(`${built.dashboard.uid}: $${variable.name} is not label_values(...)`);
        }
        return {
          dashboard: built.dashboard.uid ?? '',
          variable: variable.name,
          query,
          selector: match[1],
          label: match[2],
        };
      }),
  );
}

/** The panels that query (rows only group them). */
export function queryPanels(board: dashboard.Dashboard): dashboard.Panel[] {
  return (board.panels ?? []).filter((panel): panel is dashboard.Panel => panel.type !== 'row');
}

/** A target's `expr` (targets are typed as any data source's query). */
export function targetExpr(target: object): string {
  return stringField(target, 'expr');
}

function stringField(target: object, field: string): string {
  const value: unknown = (target as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : '';
}
