'use client';
import type { ReactNode } from 'react';
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCount } from '@/lib/format-number';
import {
  MARGIN,
  type History,
  timeAxis,
  valueAxis,
  pointTooltip,
  ChartFigure,
  Plot,
} from './history-chart-parts';
import { formatPointStart, rangeOption } from './history-format';
import { largest, OPEN_KEY, throughputRows, type Outcome } from './history-rows';
import { valueTicks } from './value-ticks';

const OUTCOME_STYLE: Record<Outcome, { label: string; color: string }> = {
  completed: { label: 'Completed', color: 'var(--ok)' },
  failed: { label: 'Failed', color: 'var(--danger)' },
  retried: { label: 'Retried', color: 'var(--warn)' },
};

/** Completed, failed and retried per point; the point under way is a hollow dot per series. */
export function ThroughputFigure({
  history,
  height = 220,
  title,
  testId = 'history-throughput',
  headingLevel,
  note,
}: {
  history: History;
  height?: number;
  title?: string;
  testId?: string;
  headingLevel?: 2 | 3;
  /** A sentence after the summary (what the chart covers). */
  note?: ReactNode;
}) {
  const rows = throughputRows(history.points);
  const yAxis = valueTicks(
    largest(rows, ['completed', 'failed', 'retried', ...Object.values(OPEN_KEY)]),
  );
  const option = rangeOption(history.range);
  const { completed, failed, retried } = history.total;
  const last = history.points.at(-1);
  const soFar = last ? last.completed + last.failed + last.retried : 0;
  return (
    <ChartFigure
      id={testId}
      title={title ?? `Throughput per ${option.step}`}
      testId={testId}
      headingLevel={headingLevel}
      summary={
        <>
          Last {option.span}, {option.step} points: {formatCount(completed)} completed ·{' '}
          {formatCount(failed)} failed · {formatCount(retried)} retried.
          {last && soFar > 0 && (
            <>
              {' '}
              ○ The last point (from {formatPointStart(last.at, history.stepMs)}) is under way:{' '}
              {formatCount(last.completed)} completed, {formatCount(last.failed)} failed,{' '}
              {formatCount(last.retried)} retried so far.
            </>
          )}
          {note && <> {note}</>}
        </>
      }
    >
      <Plot height={height}>
        <LineChart data={rows} margin={MARGIN}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis {...timeAxis(history)} />
          <YAxis {...valueAxis(yAxis, (value) => formatCount(value))} />
          <Tooltip {...pointTooltip(history, (value) => formatCount(value))} />
          <Legend />
          {(Object.keys(OUTCOME_STYLE) as Outcome[]).map((outcome) => (
            <Line
              key={outcome}
              name={OUTCOME_STYLE[outcome].label}
              type="monotone"
              dataKey={outcome}
              stroke={OUTCOME_STYLE[outcome].color}
              strokeWidth={2}
              dot={false}
              isAnimationActive={false}
            />
          ))}
          {(Object.keys(OUTCOME_STYLE) as Outcome[]).map((outcome) => (
            <Line
              key={`open-${outcome}`}
              name={`${OUTCOME_STYLE[outcome].label} so far (under way)`}
              dataKey={OPEN_KEY[outcome]}
              className="open-point"
              stroke="none"
              legendType="none"
              dot={{
                r: 4,
                fill: 'var(--surface)',
                stroke: OUTCOME_STYLE[outcome].color,
                strokeWidth: 2,
              }}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </Plot>
    </ChartFigure>
  );
}
