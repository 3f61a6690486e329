/**
 * Template variables shared by the dashboards, and the link to one queue's dashboard (the URL
 * the console opens too: /d/oxmq-queue/oxmq-queue?var-prefix=…&var-queue=…).
 */
import type * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';

/** Every panel and target reads the data source the `datasource` variable selects. */
export const DATASOURCE: common.DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

export const QUEUE_DASHBOARD_UID = 'oxmq-queue';

/** Picks the Prometheus data source; every panel reads it as `${datasource}`. */
export function datasourceVariable(): dashboard.DatasourceVariableBuilder {
  return new dashboard.DatasourceVariableBuilder('datasource')
    .label('Data source')
    .type('prometheus');
}

interface QueryVariableSpec {
  readonly name: string;
  readonly label: string;
  /** Grafana's `label_values(<selector>, <label>)`. */
  readonly query: string;
  readonly description: string;
  /** Several values (and "All"), matched with `=~` in the expressions. */
  readonly multi?: boolean;
}

/** A variable whose values are the label values Prometheus has seen in the time range. */
export function queryVariable(spec: QueryVariableSpec): dashboard.QueryVariableBuilder {
  const variable = new dashboard.QueryVariableBuilder(spec.name)
    .label(spec.label)
    .description(spec.description)
    .datasource(DATASOURCE)
    .query(spec.query)
    .definition(spec.query)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalAsc);
  if (spec.multi) {
    // "All" as `.*` rather than a list of every value: short queries, and new queues included.
    variable.multi(true).includeAll(true).allValue('.*');
  }
  return variable;
}

/** A data link (table cell) to the queue dashboard for the row's prefix and queue. */
export function queueDashboardLink(): { title: string; url: string } {
  return {
    title: 'Open the queue dashboard',
    url:
      `/d/${QUEUE_DASHBOARD_UID}/oxmq-queue?var-prefix=\${__data.fields.prefix}` +
      '&var-queue=${__data.fields.queue}&${datasource:queryparam}&${__url_time_range}',
  };
}
