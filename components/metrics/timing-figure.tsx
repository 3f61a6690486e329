'use client';
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCount } from '@/lib/format-number';
import {
  MARGIN,
  SPARSE_VALUES,
  type History,
  timeAxis,
  pointTooltip,
  valueAxis,
  countOf,
  ChartFigure,
  Plot,
} from './history-chart-parts';
import { formatMs } from './history-format';
import { durationTicks, largest, timingRows } from './history-rows';

const PERCENTILES = [
  { key: 'p50', label: 'p50', color: 'var(--accent)' },
  { key: 'p95', label: 'p95', color: 'var(--warn)' },
  { key: 'p99', label: 'p99', color: 'var(--danger)' },
] as const;

const TIMING_TEXT = {
  wait: { title: 'Wait time', what: 'from due to first start', counted: 'jobs' },
  run: { title: 'Run time', what: 'from an attempt’s start to its outcome', counted: 'attempts' },
} as const;

/** p50, p95 and p99 of wait or run times per point. */
export function TimingFigure({
  history,
  kind,
  height = 220,
}: {
  history: History;
  kind: 'wait' | 'run';
  height?: number;
}) {
  const rows = timingRows(history.points, kind);
  const yAxis = durationTicks(largest(rows, ['p50', 'p95', 'p99']));
  const total = history.total[kind];
  const text = TIMING_TEXT[kind];
  return (
    <ChartFigure
      id={`history-${kind}`}
      title={`${text.title} (${text.what})`}
      testId={`history-${kind}`}
      summary={
        total === null ? (
          `No ${kind === 'wait' ? 'job started' : 'attempt ended'} in this range.`
        ) : (
          <>
            {text.title} of {formatCount(total.count)} {text.counted}: p50 {formatMs(total.p50Ms)} ·
            p95 {formatMs(total.p95Ms)} · p99 {formatMs(total.p99Ms)} · mean{' '}
            {formatMs(total.meanMs)}.
          </>
        )
      }
    >
      <Plot height={height}>
        <LineChart data={rows} margin={MARGIN}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis {...timeAxis(history)} />
          <YAxis {...valueAxis(yAxis, (value) => formatMs(value), { decimals: true, width: 76 })} />
          <Tooltip {...pointTooltip(history, (value) => formatMs(value))} />
          <Legend />
          {PERCENTILES.map((line) => (
            <Line
              key={line.key}
              name={line.label}
              type="monotone"
              dataKey={line.key}
              stroke={line.color}
              strokeWidth={2}
              dot={countOf(rows, line.key) <= SPARSE_VALUES ? { r: 2 } : false}
              connectNulls={false}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </Plot>
    </ChartFigure>
  );
}
