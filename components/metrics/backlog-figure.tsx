'use client';
import { Area, AreaChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCount } from '@/lib/format-number';
import {
  NO_BACKLOG_TEXT,
  MARGIN,
  SPARSE_VALUES,
  type History,
  timeAxis,
  valueAxis,
  pointTooltip,
  ChartFigure,
  Plot,
} from './history-chart-parts';
import { formatPointStart } from './history-format';
import {
  BACKLOG_LABELS,
  BACKLOG_STATES,
  backlogRows,
  largestSum,
  latestBacklog,
} from './history-rows';
import { valueTicks } from './value-ticks';

const BACKLOG_COLORS: Record<(typeof BACKLOG_STATES)[number], string> = {
  waiting: 'var(--accent)',
  prioritized: '#8e6bd6',
  'waiting-children': '#c2794d',
  delayed: '#7f8794',
  active: 'var(--ok)',
};

/** Jobs per state at each point's last backlog sample, stacked. */
export function BacklogFigure({
  history,
  jobName,
  height = 220,
}: {
  history: History;
  jobName: string | null;
  height?: number;
}) {
  const rows = backlogRows(history.points);
  const latest = latestBacklog(history.points);
  const yAxis = valueTicks(largestSum(rows, BACKLOG_STATES));
  const samples = history.points.filter((point) => point.backlog !== null).length;
  return (
    <ChartFigure
      id="history-backlog"
      title={jobName === null ? 'Backlog by state' : 'Backlog by state (all job names)'}
      testId="history-backlog"
      summary={
        !latest ? (
          `No backlog sample in this range. ${NO_BACKLOG_TEXT}`
        ) : (
          <>
            Latest sample ({history.stepMs > 60_000 ? 'point of ' : ''}
            {formatPointStart(latest.at, history.stepMs)}):{' '}
            {BACKLOG_STATES.map(
              (state) =>
                `${formatCount(latest.backlog[state] ?? 0)} ${BACKLOG_LABELS[state].toLowerCase()}`,
            ).join(' · ')}
            ; {formatCount(latest.backlog.completed ?? 0)} completed and{' '}
            {formatCount(latest.backlog.failed ?? 0)} failed jobs kept.
          </>
        )
      }
    >
      {latest && (
        <Plot height={height}>
          <AreaChart data={rows} margin={MARGIN}>
            <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
            <XAxis {...timeAxis(history)} />
            <YAxis {...valueAxis(yAxis, (value) => formatCount(value))} />
            <Tooltip {...pointTooltip(history, (value) => formatCount(value))} />
            <Legend />
            {BACKLOG_STATES.map((state) => (
              <Area
                key={state}
                name={BACKLOG_LABELS[state]}
                type="monotone"
                dataKey={state}
                stackId="backlog"
                stroke={BACKLOG_COLORS[state]}
                fill={BACKLOG_COLORS[state]}
                fillOpacity={0.35}
                dot={samples <= SPARSE_VALUES ? { r: 2, fill: BACKLOG_COLORS[state] } : false}
                connectNulls={false}
                isAnimationActive={false}
              />
            ))}
          </AreaChart>
        </Plot>
      )}
    </ChartFigure>
  );
}
