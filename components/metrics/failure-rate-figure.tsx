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
import { formatPercent } from './history-format';
import { failureRateOf, failureRateRows, largest } from './history-rows';
import { valueTicks } from './value-ticks';

/** Failed for good of the finished jobs, and failed of the attempts, per point, in %. */
export function FailureRateFigure({
  history,
  height = 220,
}: {
  history: History;
  height?: number;
}) {
  const rows = failureRateRows(history.points);
  const yAxis = valueTicks(Math.min(100, largest(rows, ['failedPct', 'attemptsFailedPct'])));
  const rate = failureRateOf(history.total);
  const series = [
    { key: 'failedPct', label: 'Jobs failed for good', color: 'var(--danger)' },
    { key: 'attemptsFailedPct', label: 'Attempts failed', color: 'var(--warn)' },
  ] as const;
  return (
    <ChartFigure
      id="history-failure-rate"
      title="Failure rate"
      testId="history-failure-rate"
      summary={
        rate.attempts === 0 ? (
          'No job finished in this range.'
        ) : (
          <>
            Failed for good: {formatPercent(rate.finished ? rate.failed / rate.finished : 0)} of
            finished jobs ({formatCount(rate.failed)} of {formatCount(rate.finished)}) · attempts
            failed: {formatPercent(rate.attemptsFailed / rate.attempts)} (
            {formatCount(rate.attemptsFailed)} of {formatCount(rate.attempts)}, retries included).
          </>
        )
      }
    >
      <Plot height={height}>
        <LineChart data={rows} margin={MARGIN}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis {...timeAxis(history)} />
          <YAxis {...valueAxis(yAxis, (value) => `${value} %`, { decimals: true })} />
          <Tooltip {...pointTooltip(history, (value) => formatPercent(value / 100))} />
          <Legend />
          {series.map((line) => (
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
