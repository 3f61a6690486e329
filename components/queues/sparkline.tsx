'use client';
import { formatCount } from '@/lib/format-number';
import { Line, LineChart, YAxis } from 'recharts';
import type { QueueMetricsSeries } from '@/lib/api-types';

/**
 * A tiny per-minute chart of closed minutes plus the still-open one (`pending`), so activity
 * shows up at once. The caption carries the numbers for screen readers and tests.
 */
export function Sparkline({
  label,
  series,
  color,
}: {
  label: string;
  series: QueueMetricsSeries;
  color: string;
}) {
  const points = [...series.perMinute, series.pending];
  const data = points.map((value, index) => ({ index, value }));
  return (
    <figure className="sparkline" data-metric={label.toLowerCase()}>
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
        {label}: {formatCount(series.pending)} this minute · {formatCount(series.total)} total
      </figcaption>
    </figure>
  );
}
