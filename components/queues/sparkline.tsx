'use client';
import { formatCount } from '@/lib/format-number';
import { Line, LineChart, YAxis } from 'recharts';
import type { SparklineSeries } from './sparkline-series';

/**
 * A tiny per-minute chart of finished minutes (sparkline-series.ts). The caption says how many
 * jobs the minute under way has so far and the total, and carries the numbers for screen
 * readers and tests; without a series yet (loading) it has no line.
 */
export function Sparkline({
  label,
  series,
  color,
}: {
  label: string;
  series: SparklineSeries | undefined;
  color: string;
}) {
  const data = (series?.points ?? []).map((value, index) => ({ index, value }));
  return (
    <figure
      className="sparkline"
      data-metric={label.toLowerCase()}
      data-source={series?.source ?? 'loading'}
    >
      <LineChart width={120} height={32} data={data} aria-hidden="true">
        <YAxis hide domain={[0, 'dataMax']} />
        <Line
          type="monotone"
          dataKey="value"
          stroke={color}
          strokeWidth={1.5}
          dot={false}
          isAnimationActive={false}
        />
      </LineChart>
      <figcaption>
        {label}:{' '}
        {series
          ? `${formatCount(series.thisMinute)} this minute · ${formatCount(series.total)} ${series.totalLabel}`
          : '…'}
      </figcaption>
    </figure>
  );
}
