'use client';
/**
 * The history charts of the metrics pages, one figure each: throughput, failure rate, wait and
 * run time percentiles, backlog by state. Each has a title and a text summary under it (the
 * numbers a screen reader or a test reads; the SVG itself is hidden from assistive technology),
 * a tooltip with the point's time and values, and the range's real time axis.
 */
import type { ReactNode } from 'react';
import {
  Area,
  AreaChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { QueueHistory } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import {
  formatMs,
  formatPercent,
  formatPointSpan,
  formatPointStart,
  formatTick,
  rangeOption,
  timeTicks,
} from './history-format';
import {
  BACKLOG_LABELS,
  BACKLOG_STATES,
  backlogRows,
  durationTicks,
  failureRateOf,
  failureRateRows,
  largest,
  largestSum,
  latestBacklog,
  OPEN_KEY,
  throughputRows,
  timingRows,
  type Outcome,
} from './history-rows';
import { valueTicks } from './value-ticks';

export const NO_OUTCOMES_TEXT =
  "OxMQ workers record timing history as they process jobs; bullmq workers don't.";
export const NO_BACKLOG_TEXT =
  'Backlog is sampled every minute by a console or runner with OXMQ_HISTORY_SAMPLER on.';

const TOOLTIP_STYLE = { background: 'var(--surface)', border: '1px solid var(--border)' };
const MARGIN = { top: 8, right: 16, bottom: 0, left: 0 };
/** Lines with this few values get dots: a lone value is no line at all. */
const SPARSE_VALUES = 40;

const OUTCOME_STYLE: Record<Outcome, { label: string; color: string }> = {
  completed: { label: 'Completed', color: 'var(--ok)' },
  failed: { label: 'Failed', color: 'var(--danger)' },
  retried: { label: 'Retried', color: 'var(--warn)' },
};

const PERCENTILES = [
  { key: 'p50', label: 'p50', color: 'var(--accent)' },
  { key: 'p95', label: 'p95', color: 'var(--warn)' },
  { key: 'p99', label: 'p99', color: 'var(--danger)' },
] as const;

const BACKLOG_COLORS: Record<(typeof BACKLOG_STATES)[number], string> = {
  waiting: 'var(--accent)',
  prioritized: '#8e6bd6',
  'waiting-children': '#c2794d',
  delayed: '#7f8794',
  active: 'var(--ok)',
};

type History = Pick<QueueHistory, 'range' | 'from' | 'to' | 'stepMs' | 'points' | 'total'>;

/** The x axis of every chart: the range's real time span, with round wall-clock ticks. */
function timeAxis(history: History) {
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

function pointLabel(history: History) {
  return (label: ReactNode) => formatPointSpan(Number(label), history.stepMs);
}

function countOf(rows: readonly object[], key: string): number {
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

function Plot({ height, children }: { height: number; children: ReactNode }) {
  return (
    <div style={{ width: '100%', height }} aria-hidden="true">
      <ResponsiveContainer>{children as React.ReactElement}</ResponsiveContainer>
    </div>
  );
}

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
          <YAxis
            allowDecimals={false}
            domain={[0, yAxis.max]}
            ticks={yAxis.ticks}
            interval={0}
            stroke="var(--muted)"
            width={48}
            tickFormatter={(value: number) => formatCount(value)}
          />
          <Tooltip
            labelFormatter={pointLabel(history)}
            formatter={(value) => formatCount(Number(value))}
            contentStyle={TOOLTIP_STYLE}
          />
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
          <YAxis
            domain={[0, yAxis.max]}
            ticks={yAxis.ticks}
            interval={0}
            stroke="var(--muted)"
            width={48}
            tickFormatter={(value: number) => `${value} %`}
          />
          <Tooltip
            labelFormatter={pointLabel(history)}
            formatter={(value) => formatPercent(Number(value) / 100)}
            contentStyle={TOOLTIP_STYLE}
          />
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
          <YAxis
            domain={[0, yAxis.max]}
            ticks={yAxis.ticks}
            interval={0}
            stroke="var(--muted)"
            width={76}
            tickFormatter={(value: number) => formatMs(value)}
          />
          <Tooltip
            labelFormatter={pointLabel(history)}
            formatter={(value) => formatMs(Number(value))}
            contentStyle={TOOLTIP_STYLE}
          />
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
            <YAxis
              allowDecimals={false}
              domain={[0, yAxis.max]}
              ticks={yAxis.ticks}
              interval={0}
              stroke="var(--muted)"
              width={48}
              tickFormatter={(value: number) => formatCount(value)}
            />
            <Tooltip
              labelFormatter={pointLabel(history)}
              formatter={(value) => formatCount(Number(value))}
              contentStyle={TOOLTIP_STYLE}
            />
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
