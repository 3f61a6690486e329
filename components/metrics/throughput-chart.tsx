'use client';
import { formatCount } from '@/lib/format-number';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { QueueMetrics } from '@/lib/api-types';
import {
  chartRows,
  formatMinute,
  hasMetrics,
  largestCount,
  plotRows,
  splitOpenMinute,
} from './chart-data';
import { MINUTE_MS, minuteStart } from './open-minute';
import { valueTicks } from './value-ticks';
const TICK_STEPS_MIN = [5, 10, 15, 30, 60, 120, 180, 240] as const;

/** Round wall-clock ticks (every 5, 10, 15 ... minutes), at most about 8 over the window. */
function minuteTicks(start: number, end: number): number[] {
  const span = (end - start) / MINUTE_MS;
  const step = (TICK_STEPS_MIN.find((minutes) => span / minutes <= 8) ?? 240) * MINUTE_MS;
  const ticks: number[] = [];
  for (let t = Math.ceil(start / step) * step; t <= end; t += step) ticks.push(t);
  return ticks;
}

const NO_METRICS_TEXT =
  'No metrics yet: metrics are recorded only by workers started with the metrics option (new Worker(name, fn, { metrics: { maxDataPoints } })).';

/**
 * Completed and failed jobs per minute on a real time axis: the x domain is the requested
 * window ending now, so quiet stretches show as gaps, not as a squeezed line. The lines end at
 * the last finished minute; the minute under way is a hollow dot per series (open-minute.ts).
 * The figure's data attributes name both minutes, for tests.
 */
export function ThroughputChart({
  metrics,
  minutes,
  height = 240,
}: {
  metrics: QueueMetrics;
  minutes: number;
  height?: number;
}) {
  if (!hasMetrics(metrics)) {
    return <p className="notice">{NO_METRICS_TEXT}</p>;
  }
  const now = Date.now();
  const start = minuteStart(now - minutes * MINUTE_MS);
  const visible = chartRows(metrics).filter((row) => row.t >= start);
  const { closed, open } = splitOpenMinute(visible, now);
  const yAxis = valueTicks(largestCount(visible));
  const completed = visible.reduce((sum, row) => sum + (row.completed ?? 0), 0);
  const failed = visible.reduce((sum, row) => sum + (row.failed ?? 0), 0);
  return (
    <figure
      className="throughput"
      data-testid="throughput-chart"
      data-last-minute={closed.at(-1)?.t}
      data-open-minute={open?.t}
    >
      <div style={{ width: '100%', height }} aria-hidden="true">
        <ResponsiveContainer>
          <LineChart
            data={plotRows(closed, open)}
            margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
          >
            <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
            <XAxis
              dataKey="t"
              type="number"
              scale="time"
              domain={[start, now]}
              ticks={minuteTicks(start, now)}
              tickFormatter={formatMinute}
              stroke="var(--muted)"
              minTickGap={32}
            />
            <YAxis
              allowDecimals={false}
              domain={[0, yAxis.max]}
              ticks={yAxis.ticks}
              interval={0}
              stroke="var(--muted)"
              width={40}
            />
            <Tooltip
              labelFormatter={(label) => `${formatMinute(Number(label))}`}
              contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)' }}
            />
            <Legend />
            <Line
              name="Completed / min"
              type="monotone"
              dataKey="completed"
              stroke="var(--ok)"
              strokeWidth={2}
              dot={closed.length < 3}
              connectNulls={false}
              isAnimationActive={false}
            />
            <Line
              name="Failed / min"
              type="monotone"
              dataKey="failed"
              stroke="var(--danger)"
              strokeWidth={2}
              dot={closed.length < 3}
              connectNulls={false}
              isAnimationActive={false}
            />
            <Line
              name="Completed this minute, so far"
              dataKey="openCompleted"
              className="open-minute"
              stroke="none"
              legendType="none"
              dot={{ r: 4, fill: 'var(--surface)', stroke: 'var(--ok)', strokeWidth: 2 }}
              isAnimationActive={false}
            />
            <Line
              name="Failed this minute, so far"
              dataKey="openFailed"
              className="open-minute"
              stroke="none"
              legendType="none"
              dot={{ r: 4, fill: 'var(--surface)', stroke: 'var(--danger)', strokeWidth: 2 }}
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <figcaption>
        Last {minutes >= 60 ? `${minutes / 60} h` : `${minutes} min`}: {formatCount(completed)}{' '}
        completed · {formatCount(failed)} failed · all time {formatCount(metrics.completed.total)}{' '}
        completed · {formatCount(metrics.failed.total)} failed
        {open && (
          <>
            {' '}
            · ○ this minute so far (partial): {formatCount(open.completed ?? 0)} completed ·{' '}
            {formatCount(open.failed ?? 0)} failed
          </>
        )}
      </figcaption>
    </figure>
  );
}
