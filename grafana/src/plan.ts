/**
 * The few panel shapes the OxMQ dashboards use, on top of @grafana/grafana-foundation-sdk: each
 * panel reads the `${datasource}` variable (so a dashboard imports into any Grafana whatever its
 * Prometheus is called), has a description that says which question it answers, a unit, and an
 * id from one counter. The SDK's dashboard builder lays panels out left to right, 24 columns a
 * line, under the row they follow.
 *
 * The dashboards use the classic dashboard JSON (schemaVersion 42, `DashboardBuilder`) rather
 * than the SDK's v2 resources: v2 imports only into recent Grafana with a feature flag, the
 * classic JSON imports into every supported version.
 */
import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as heatmap from '@grafana/grafana-foundation-sdk/heatmap';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { DATASOURCE, queueDashboardLink } from './variables';

export interface Query {
  readonly expr: string;
  /** Series name, e.g. `{{prefix}} {{queue}}`. */
  readonly legend?: string;
  /**
   * When an empty result is the right answer (a list of problems on a healthy system, a limit
   * the queue does not set). Tests that load the system and expect data read this.
   */
  readonly emptyWhen?: string;
}

interface PanelSpec {
  readonly title: string;
  /** The question the panel answers, and how to read it. */
  readonly description: string;
  readonly queries: readonly Query[];
  /** Width in grid columns (24 a line) and height in grid rows. */
  readonly w: number;
  readonly h: number;
}

export interface TimeseriesSpec extends PanelSpec {
  readonly unit: string;
  readonly max?: number;
}

export interface StatSpec extends PanelSpec {
  readonly unit: string;
  /** Colour steps, lowest first; the first step's value is null (from -∞). */
  readonly steps?: dashboard.Threshold[];
  readonly mappings?: dashboard.ValueMapping[];
}

export interface TableColumn {
  readonly header: string;
  readonly unit: string;
}

export interface TableSpec extends PanelSpec {
  /** One column per query, in query order; rows join on the series labels. */
  readonly columns: readonly TableColumn[];
  /** The header of the column the table sorts on, descending. */
  readonly sortBy: string;
}

export interface HeatmapSpec extends PanelSpec {
  readonly unit: string;
}

export interface BuiltDashboard {
  /** File name under grafana/dashboards. */
  readonly file: string;
  readonly dashboard: dashboard.Dashboard;
  /** `<panel id>/<refId>` → Query.emptyWhen of that target. */
  readonly emptyWhen: ReadonlyMap<string, string>;
}

export interface DashboardIdentity {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly variables: readonly cog.Builder<dashboard.VariableModel>[];
}

const REF_IDS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A dropdown of the other OxMQ dashboards (by tag), keeping the time range and variables. Built
 * as a plain object: the SDK's link builder always sets `placement: inControlsMenu`, which hides
 * the link in a menu in recent Grafana.
 */
const OTHER_DASHBOARDS: cog.Builder<dashboard.DashboardLink> = {
  build: () => ({
    title: 'OxMQ dashboards',
    type: dashboard.DashboardLinkType.Dashboards,
    icon: 'external link',
    tooltip: '',
    tags: ['oxmq'],
    asDropdown: true,
    targetBlank: false,
    includeVars: true,
    keepTime: true,
  }),
};

/**
 * Grafana's alert rule list, filtered to OxMQ's rules: the Grafana-managed copies provisioned
 * from grafana/provisioning/alerting and, when Grafana shows its Prometheus's rules, the ones
 * Prometheus loads from grafana/alerts. All are named `Oxmq…` (grafana/src/alerts.ts). The
 * runbooks are not on a server Grafana knows, so the tooltip names the file.
 */
export const ALERTS_LINK_URL = '/alerting/list?search=rule:Oxmq';
const ALERTS: cog.Builder<dashboard.DashboardLink> = {
  build: () => ({
    title: 'OxMQ alerts',
    type: dashboard.DashboardLinkType.Link,
    icon: 'bolt',
    tooltip: 'OxMQ alert rules and their state; each has a runbook section in docs/alerts.md',
    url: ALERTS_LINK_URL,
    tags: [],
    asDropdown: false,
    targetBlank: false,
    includeVars: false,
    keepTime: false,
  }),
};

/** Green below the first step; used by the "is anything wrong" stats. */
export function redFrom(value: number): dashboard.Threshold[] {
  return [
    { value: null, color: 'green' },
    { value, color: 'red' },
  ];
}

export class DashboardPlan {
  private readonly builder: dashboard.DashboardBuilder;
  private readonly identity: DashboardIdentity;
  private readonly emptyWhen = new Map<string, string>();
  private nextId = 1;

  constructor(identity: DashboardIdentity) {
    this.identity = identity;
    this.builder = new dashboard.DashboardBuilder(identity.title)
      .uid(identity.uid)
      .description(identity.description)
      .tags(['oxmq'])
      .editable()
      .tooltip(dashboard.DashboardCursorSync.Crosshair)
      .time({ from: 'now-1h', to: 'now' })
      .refresh('30s')
      .variables([...identity.variables])
      // Grafana's own annotations (alerts, manual notes), as a dashboard made in Grafana has.
      .annotation(
        new dashboard.AnnotationQueryBuilder()
          .name('Annotations & Alerts')
          .datasource({ type: 'grafana', uid: '-- Grafana --' })
          .type('dashboard')
          .builtIn(1)
          .enable(true)
          .hide(true)
          .iconColor('rgba(0, 211, 255, 1)'),
      )
      .link(OTHER_DASHBOARDS)
      .link(ALERTS);
  }

  row(title: string): this {
    this.builder.withRow(new dashboard.RowBuilder(title).id(this.nextId++));
    return this;
  }

  timeseries(spec: TimeseriesSpec): this {
    const id = this.nextId++;
    const panel = new timeseries.PanelBuilder()
      .id(id)
      .title(spec.title)
      .description(spec.description)
      .datasource(DATASOURCE)
      .targets(this.targets(id, spec.queries, 'range'))
      .unit(spec.unit)
      .min(0)
      .span(spec.w)
      .height(spec.h)
      .fillOpacity(10)
      .legend(
        new common.VizLegendOptionsBuilder()
          .showLegend(true)
          .displayMode(common.LegendDisplayMode.List)
          .placement(common.LegendPlacement.Bottom),
      )
      .tooltip(
        new common.VizTooltipOptionsBuilder()
          .mode(common.TooltipDisplayMode.Multi)
          .sort(common.SortOrder.Descending),
      );
    if (spec.max !== undefined) panel.max(spec.max);
    this.builder.withPanel(panel);
    return this;
  }

  stat(spec: StatSpec): this {
    const id = this.nextId++;
    const panel = new stat.PanelBuilder()
      .id(id)
      .title(spec.title)
      .description(spec.description)
      .datasource(DATASOURCE)
      .targets(this.targets(id, spec.queries, 'range'))
      .unit(spec.unit)
      .span(spec.w)
      .height(spec.h)
      .graphMode(common.BigValueGraphMode.Area)
      .colorMode(common.BigValueColorMode.Value)
      .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']))
      .thresholds(
        new dashboard.ThresholdsConfigBuilder()
          .mode(dashboard.ThresholdsMode.Absolute)
          .steps(spec.steps ?? [{ value: null, color: 'text' }]),
      )
      .colorScheme(new dashboard.FieldColorBuilder().mode(dashboard.FieldColorModeId.Thresholds));
    if (spec.mappings) panel.mappings(spec.mappings);
    this.builder.withPanel(panel);
    return this;
  }

  table(spec: TableSpec): this {
    if (spec.columns.length !== spec.queries.length) {
      throw new Error(`${spec.title}: one column per query`);
    }
    const id = this.nextId++;
    // Grafana names a single query's value column "Value", several "Value #<refId>".
    const valueColumn = (index: number): string =>
      spec.queries.length === 1 ? 'Value' : `Value #${REF_IDS[index] ?? ''}`;
    const renameByName: Record<string, string> = {};
    spec.columns.forEach((column, index) => (renameByName[valueColumn(index)] = column.header));
    const panel = new table.PanelBuilder()
      .id(id)
      .title(spec.title)
      .description(spec.description)
      .datasource(DATASOURCE)
      .targets(this.targets(id, spec.queries, 'table'))
      .span(spec.w)
      .height(spec.h)
      .noValue('None')
      .sortBy([new common.TableSortByFieldStateBuilder().displayName(spec.sortBy).desc(true)])
      // One row per series: join the instant results on their labels, then name the columns.
      .transformations([
        { id: 'merge', options: {} },
        { id: 'organize', options: { excludeByName: { Time: true }, renameByName } },
      ])
      // The queue column opens that queue's dashboard (the same link as the console's).
      .overrideByName('queue', [{ id: 'links', value: [queueDashboardLink()] }]);
    for (const column of spec.columns) {
      panel.overrideByName(column.header, [{ id: 'unit', value: column.unit }]);
    }
    this.builder.withPanel(panel);
    return this;
  }

  heatmap(spec: HeatmapSpec): this {
    const id = this.nextId++;
    const panel = new heatmap.PanelBuilder()
      .id(id)
      .title(spec.title)
      .description(spec.description)
      .datasource(DATASOURCE)
      .targets(this.targets(id, spec.queries, 'heatmap'))
      .span(spec.w)
      .height(spec.h)
      // The buckets are already a histogram: draw them, do not bucket the values again.
      .calculate(false)
      .rowsFrame(new heatmap.RowsHeatmapOptionsBuilder().layout(common.HeatmapCellLayout.Le))
      .yAxis(new heatmap.YAxisConfigBuilder().unit(spec.unit))
      .color(
        new heatmap.HeatmapColorOptionsBuilder()
          .mode(heatmap.HeatmapColorMode.Scheme)
          .scheme('Oranges')
          .scale(heatmap.HeatmapColorScale.Exponential)
          .exponent(0.5)
          .steps(64),
      );
    this.builder.withPanel(panel);
    return this;
  }

  build(): BuiltDashboard {
    return {
      file: `${this.identity.uid}.json`,
      dashboard: this.builder.build(),
      emptyWhen: new Map(this.emptyWhen),
    };
  }

  private targets(
    panelId: number,
    queries: readonly Query[],
    shape: 'range' | 'table' | 'heatmap',
  ): prometheus.DataqueryBuilder[] {
    if (queries.length === 0) throw new Error(`panel ${panelId} has no query`);
    return queries.map((query, index) => {
      const refId = REF_IDS[index];
      if (!refId) throw new Error(`panel ${panelId} has too many queries`);
      if (query.emptyWhen) this.emptyWhen.set(`${panelId}/${refId}`, query.emptyWhen);
      const target = new prometheus.DataqueryBuilder()
        .refId(refId)
        .datasource(DATASOURCE)
        .editorMode(prometheus.QueryEditorMode.Code)
        .expr(query.expr);
      if (shape === 'table') return target.instant().format(prometheus.PromQueryFormat.Table);
      target.range();
      if (shape === 'heatmap') {
        return target.format(prometheus.PromQueryFormat.Heatmap).legendFormat('{{le}}');
      }
      return query.legend ? target.legendFormat(query.legend) : target;
    });
  }
}
