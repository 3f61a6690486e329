'use client';
/**
 * What the history charts (throughput-figure.tsx, failure-rate-figure.tsx, timing-figure.tsx,
 * backlog-figure.tsx) share: the figure with its title and text summary (the numbers a screen
 * reader or a test reads; the SVG itself is hidden from assistive technology), the real time
 * axis of the range, the value axis, and the tooltip with the point's time span.
 */
import type { ReactNode } from 'react';
import { ResponsiveContainer } from 'recharts';
import type { QueueHistory } from '@/lib/api-types';
import { formatPointSpan, formatTick, timeTicks } from './history-format';

export const NO_OUTCOMES_TEXT =
  "OxMQ workers record timing history as they process jobs; bullmq workers don't.";
export const NO_BACKLOG_TEXT =
  'Backlog is sampled every minute by a console or runner with OXMQ_HISTORY_SAMPLER on.';

export const MARGIN = { top: 8, right: 16, bottom: 0, left: 0 };
/** Lines with this few values get dots: a lone value is no line at all. */
export const SPARSE_VALUES = 40;
const TOOLTIP_STYLE = { background: 'var(--surface)', border: '1px solid var(--border)' };

export type History = Pick<QueueHistory, 'range' | 'from' | 'to' | 'stepMs' | 'points' | 'total'>;

/** The x axis of every chart: the range's real time span, with round wall-clock ticks. */
export function timeAxis(history: History) {
  return {
    dataKey: 'at',
    type: 'number' as const,
    scale: 'time' as const,
    domain: [history.from, history.to],
    ticks: timeTicks(history.from, history.to),
    tickFormatter: (t: number) => formatTick(t, history.to, history.from),
    stroke: 'var(--muted)',
    minTickGap: 24,
  };
}

/**
 * The y axis of every chart: from 0 to round ticks, each value shown as `format` says; counts
 * are whole, rates and durations may have decimals.
 */
export function valueAxis(
  ticks: { max: number; ticks: number[] },
  format: (value: number) => string,
  { decimals = false, width = 48 }: { decimals?: boolean; width?: number } = {},
) {
  return {
    allowDecimals: decimals,
    domain: [0, ticks.max],
    ticks: ticks.ticks,
    interval: 0,
    stroke: 'var(--muted)',
    width,
    tickFormatter: format,
  };
}

/** The tooltip of every chart: the point's time span, then each value as `format` says. */
export function pointTooltip(history: History, format: (value: number) => string) {
  return {
    labelFormatter: (label: ReactNode) => formatPointSpan(Number(label), history.stepMs),
    formatter: (value: unknown) => format(Number(value)),
    contentStyle: TOOLTIP_STYLE,
  };
}

export function countOf(rows: readonly object[], key: string): number {
  return rows.filter((row) => typeof (row as Record<string, unknown>)[key] === 'number').length;
}

export function ChartFigure({
  id,
  title,
  testId,
  summary,
  children,
  headingLevel = 3,
}: {
  id: string;
  title: string;
  testId: string;
  summary: ReactNode;
  children: ReactNode;
  headingLevel?: 2 | 3;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <figure className="history-chart card" data-testid={testId} aria-labelledby={`${id}-title`}>
      <Heading id={`${id}-title`}>{title}</Heading>
      {children}
      <figcaption data-testid={`${testId}-summary`}>{summary}</figcaption>
    </figure>
  );
}

export function Plot({ height, children }: { height: number; children: ReactNode }) {
  return (
    <div style={{ width: '100%', height }} aria-hidden="true">
      <ResponsiveContainer>{children as React.ReactElement}</ResponsiveContainer>
    </div>
  );
}
