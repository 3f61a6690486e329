/**
 * The Grafana dashboards (grafana/src → grafana/dashboards): the committed JSON is what the
 * sources generate, each dashboard is well formed and imports anywhere (everything reads the
 * `datasource` variable), every metric they read is in docs/metrics.md and read as its type
 * allows, and every expression is valid PromQL for a real Prometheus.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allPanelExpressions,
  buildDashboards,
  queryPanels,
  substituteVariables,
  targetExpr,
  variableQueries,
} from '../../grafana/src/index';
import { checkExpression, resolveMetric } from '../../grafana/src/metric-check';
import { parseMetricsContract } from '../../grafana/src/metrics-contract';
import { analyzePromQL } from '../../grafana/src/promql';
import { renderDashboardFiles } from '../../grafana/src/render';
import { promtool, startPrometheus, type RunningPrometheus } from '../helpers/prometheus';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dashboardsDir = path.join(repoRoot, 'grafana', 'dashboards');
const contract = parseMetricsContract(
  readFileSync(path.join(repoRoot, 'docs', 'metrics.md'), 'utf8'),
);
const VALUES = { prefix: 'bull', queue: 'emails', instance: '127.0.0.1:3001' };
const DATASOURCE_UID = '${datasource}';
const built = buildDashboards();

describe('committed dashboards', () => {
  it('are exactly what grafana/build.ts writes (run it after changing grafana/src)', async () => {
    const generated = await renderDashboardFiles(dashboardsDir);
    const committed = readdirSync(dashboardsDir).filter((file) => file.endsWith('.json'));
    expect(committed.sort()).toEqual([...generated.keys()].sort());
    for (const [file, text] of generated) {
      expect(readFileSync(path.join(dashboardsDir, file), 'utf8'), file).toBe(text);
    }
  });

  it('are the four documented dashboards, each in the file named after its uid', () => {
    expect(built.map((b) => b.dashboard.uid)).toEqual([
      'oxmq-overview',
      'oxmq-queue',
      'oxmq-workers',
      'oxmq-latency',
    ]);
    for (const { file, dashboard } of built) expect(file).toBe(`${dashboard.uid}.json`);
  });
});

describe.each(built.map((b) => [b.dashboard.uid ?? '', b] as const))('dashboard %s', (_, b) => {
  const board = b.dashboard;
  const panels = queryPanels(board);

  it('has a title, a schema version, and a Prometheus data source variable', () => {
    expect(board.title).toMatch(/^OxMQ /);
    expect(board.schemaVersion).toBeGreaterThanOrEqual(36);
    const variables = board.templating.list ?? [];
    expect(variables.filter((v) => v.type === 'datasource')).toEqual([
      expect.objectContaining({ name: 'datasource', query: 'prometheus' }),
    ]);
    for (const variable of variables.filter((v) => v.type === 'query')) {
      expect(variable.datasource, variable.name).toEqual({
        type: 'prometheus',
        uid: DATASOURCE_UID,
      });
    }
  });

  it('gives every panel a unique id and a place on the grid that no other panel takes', () => {
    const all = board.panels ?? [];
    const ids = all.map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id) && (id ?? 0) > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Set<string>();
    for (const panel of all) {
      const { x, y, w, h } = panel.gridPos ?? { x: -1, y: -1, w: 0, h: 0 };
      expect(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 24, `${panel.title}`).toBe(true);
      for (let col = x; col < x + w; col++) {
        for (let row = y; row < y + h; row++) {
          expect(cells.has(`${col},${row}`), `${panel.title} overlaps`).toBe(false);
          cells.add(`${col},${row}`);
        }
      }
    }
    // Rows only group: a collapsed row would hide its panels from these checks.
    for (const row of all.filter((p) => p.type === 'row')) {
      expect(row).toMatchObject({ collapsed: false, panels: [] });
    }
  });

  it('reads ${datasource} in every panel and target, and every target has an expression', () => {
    expect(panels.length).toBeGreaterThan(0);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: DATASOURCE_UID });
      const targets = panel.targets ?? [];
      expect(targets.length, panel.title).toBeGreaterThan(0);
      const refIds = targets.map((t) => (t as { refId?: string }).refId);
      expect(new Set(refIds).size, panel.title).toBe(targets.length);
      for (const target of targets) {
        expect(target, panel.title).toMatchObject({
          datasource: { type: 'prometheus', uid: DATASOURCE_UID },
        });
        expect(targetExpr(target).trim(), panel.title).not.toBe('');
      }
    }
  });

  it('describes what every panel answers and gives its values a unit', () => {
    for (const panel of panels) {
      expect(panel.description ?? '', panel.title).toMatch(/\?/);
      const units = unitsOf(panel);
      expect(units.length, `${panel.title}: no unit`).toBeGreaterThan(0);
      for (const unit of units) expect(unit, panel.title).toMatch(/^[a-z_]+$/);
    }
  });
});

/** The units a panel sets: its default, a heatmap's y axis, a table's per-column overrides. */
function unitsOf(panel: {
  type: string;
  options?: unknown;
  fieldConfig?: {
    defaults: { unit?: string };
    overrides: { properties: { id: string; value?: unknown }[] }[];
  };
}): string[] {
  if (panel.type === 'heatmap') {
    const yAxis = (panel.options as { yAxis?: { unit?: string } } | undefined)?.yAxis;
    return yAxis?.unit ? [yAxis.unit] : [];
  }
  if (panel.type === 'table') {
    return (panel.fieldConfig?.overrides ?? []).flatMap((o) =>
      o.properties.filter((p) => p.id === 'unit').map((p) => String(p.value)),
    );
  }
  const unit = panel.fieldConfig?.defaults.unit;
  return unit ? [unit] : [];
}

describe('the queue dashboard (linked from the console)', () => {
  it('keeps its uid and the prefix and queue variables the console link sets', () => {
    const queue = built.find((b) => b.dashboard.uid === 'oxmq-queue')?.dashboard;
    const variables = queue?.templating.list ?? [];
    expect(variables.map((v) => v.name)).toEqual(['datasource', 'prefix', 'queue']);
    expect(variables[1]?.query).toBe('label_values(bullmq_job_count, prefix)');
    expect(variables[2]?.query).toBe('label_values(bullmq_job_count{prefix="$prefix"}, queue)');
  });
});

describe('metric names', () => {
  const expressions = allPanelExpressions(VALUES);

  it('reads docs/metrics.md: both tables, with names, types and labels', () => {
    expect(contract.get('oxmq_job_processing_duration_seconds')?.type).toBe('histogram');
    expect(contract.get('oxmq_jobs_failed_total')).toEqual({
      name: 'oxmq_jobs_failed_total',
      type: 'counter',
      labels: ['prefix', 'queue', 'final'],
    });
    expect(contract.get('bullmq_job_count')?.labels).toEqual(['prefix', 'queue', 'state']);
    expect(contract.get('oxmq_scrape_queues_omitted')).toMatchObject({ type: 'gauge', labels: [] });
    expect(() =>
      parseMetricsContract('| Metric | Type | Labels |\n| - | - | - |\n| x | gauge | – |'),
    ).toThrow(/no metric name/);
  });

  it('every expression reads only listed metrics, as their type allows, on their labels', () => {
    expect(expressions.length).toBeGreaterThan(40);
    const problems = [
      ...expressions.map((e) => ({
        where: `${e.dashboard} "${e.panel}" ${e.refId}`,
        expr: e.expr,
      })),
      ...variableQueries().map((v) => ({
        where: `${v.dashboard} $${v.variable}`,
        expr: v.selector,
      })),
    ].flatMap(({ where, expr }) => checkExpression(expr, contract).map((p) => `${where}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('finds metric names the way PromQL reads them (the parser the check relies on)', () => {
    const analysis = analyzePromQL(
      'histogram_quantile(0.95, sum by (le, queue) (rate(oxmq_job_wait_time_seconds_bucket' +
        '{queue=~"a|oxmq_not_a_metric"}[5m] offset 1m))) / on (queue) group_left(instance) ' +
        'max without (state) (bullmq_job_count) > 1e-3 or vector(0) unless {__name__="up"}',
    );
    expect(analysis.metrics).toEqual([
      {
        name: 'oxmq_job_wait_time_seconds_bucket',
        within: ['histogram_quantile', 'sum', 'rate'],
        matcherLabels: ['queue'],
      },
      { name: 'bullmq_job_count', within: ['max'], matcherLabels: [] },
      { name: 'up', within: [], matcherLabels: [] },
    ]);
    expect(analysis.groupingLabels).toEqual(['le', 'queue', 'queue', 'instance', 'state']);
    expect(resolveMetric('bullmq_job_count', contract)?.contract.type).toBe('gauge');
    expect(resolveMetric('oxmq_job_wait_time_seconds_count', contract)).toMatchObject({
      contract: { name: 'oxmq_job_wait_time_seconds' },
      series: 'count',
    });
  });

  it('fails on unknown metrics, misused types and unknown labels', () => {
    const check = (expr: string) => checkExpression(expr, contract);
    expect(check('sum by (queue) (rate(oxmq_made_up_total{queue="x"}[5m]))')).toEqual([
      'unknown metric oxmq_made_up_total (not in docs/metrics.md)',
    ]);
    expect(check('rate(oxmq_jobs_failed_totl[1m]) + oxmq_worker_concurrency')).toEqual([
      'unknown metric oxmq_jobs_failed_totl (not in docs/metrics.md)',
    ]);
    expect(check('oxmq_jobs_completed_total')).toEqual([
      'oxmq_jobs_completed_total only grows: read it through rate() or increase()',
    ]);
    expect(check('rate(oxmq_queue_workers[1m])')).toEqual([
      'oxmq_queue_workers is a gauge: rate() and increase() are for counters',
    ]);
    expect(check('oxmq_job_wait_time_seconds')).toEqual([
      'oxmq_job_wait_time_seconds is a histogram: read oxmq_job_wait_time_seconds_bucket, _sum or _count',
    ]);
    expect(check('oxmq_queue_paused{stat="x"}')).toEqual(['oxmq_queue_paused has no label "stat"']);
    expect(check('sum by (sate) (bullmq_job_count)')).toEqual([
      'no metric here has the label "sate"',
    ]);
    expect(check('vector(0)')).toEqual(['reads no metric']);
  });
});

describe('expressions on a real Prometheus', () => {
  let prometheus: RunningPrometheus;
  beforeAll(async () => {
    prometheus = await startPrometheus();
  });
  afterAll(async () => {
    await prometheus?.stop();
  });

  it('rejects an invalid expression (so the next check can fail)', async () => {
    await expect(prometheus.query('sum by (queue) (rate(x[1m])')).rejects.toThrow(/bad_data/);
    await expect(
      prometheus.query(substituteVariables('rate(x[$__rate_interval]', VALUES)),
    ).rejects.toThrow(/parse error/);
  });

  it('accepts every panel expression and variable selector, variables substituted', async () => {
    const failures: string[] = [];
    const queries = [
      ...allPanelExpressions(VALUES).map((e) => ({
        where: `${e.dashboard} "${e.panel}" ${e.refId}`,
        expr: e.expr,
      })),
      // label_values() is Grafana's; its selector must still be valid PromQL.
      ...variableQueries().map((v) => ({
        where: `${v.dashboard} $${v.variable}`,
        expr: `group by (${v.label}) (${substituteVariables(v.selector, VALUES)})`,
      })),
    ];
    for (const { where, expr } of queries) {
      expect(expr, where).not.toContain('$');
      await prometheus
        .query(expr)
        .catch((error: Error) => failures.push(`${where}: ${error.message}`));
    }
    expect(failures).toEqual([]);
  });
});

describe('grafana/prometheus.example.yml', () => {
  it('passes promtool check config', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-promtool-'));
    try {
      const config = path.join(dir, 'prometheus.yml');
      copyFileSync(path.join(repoRoot, 'grafana', 'prometheus.example.yml'), config);
      // The example reads the console's token from a file next to it; promtool checks it exists.
      writeFileSync(path.join(dir, 'oxmq-metrics.token'), 'token\n');
      // And the alerting rules from alerts/ beside it, which promtool checks as well.
      mkdirSync(path.join(dir, 'alerts'));
      copyFileSync(
        path.join(repoRoot, 'grafana', 'alerts', 'oxmq-alerts.yml'),
        path.join(dir, 'alerts', 'oxmq-alerts.yml'),
      );
      const { stdout } = await promtool(['check', 'config', config]);
      expect(stdout).toContain('SUCCESS');
      const text = readFileSync(config, 'utf8');
      expect(text).toMatch(/metrics_path: \/api\/prometheus/);
      expect(text).toMatch(/metrics_path: \/metrics/);
      expect(text).toMatch(/localhost:3001/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
