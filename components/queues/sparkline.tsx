'use client';
import { formatCount } from '@/lib/format-number';
import { Line, LineChart, YAxis } from 'recharts';
import type { QueueMetricsSeries } from '@/lib/api-types';
import { openMinuteCount, sparklinePoints } from '../metrics/open-minute';

/**
 * A tiny per-minute chart of finished minutes. The minute under way is left out of the line (a
 * partial count would end it in a drop, open-minute.ts); the caption says how many jobs it has
 * so far, and carries the numbers for screen readers and tests.
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
  const now = Date.now();
  const points = sparklinePoints(series, now);
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
        {label}: {formatCount(openMinuteCount(series, now))} this minute ·{' '}
        {formatCount(series.total)} total
      </figcaption>
    </figure>
  );
}
