'use client';
/**
 * The metrics pages: the history of one queue (/metrics/:prefix/:name) or summed over a page of
 * queues (/metrics). The range, the job name and the page live in the URL query
 * (`?range=24h&job=resize`), so a view survives a reload and can be shared.
 */
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import type { HistoryRangeName, QueueHistory } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { hasMetrics } from './chart-data';
import {
  BacklogFigure,
  FailureRateFigure,
  NO_BACKLOG_TEXT,
  NO_OUTCOMES_TEXT,
  ThroughputFigure,
  TimingFigure,
} from './history-figures';
import { HISTORY_RANGE_OPTIONS, parseHistoryRange, rangeOption } from './history-format';
import { HistoryNames } from './history-names';
import { hasOutcomes } from './history-rows';
import { ThroughputChart } from './throughput-chart';
import { useHistoryAcross, useQueueHistory, useSparklines } from './use-history';
import { useQueueMetrics } from './use-metrics';

/** Longest job name the routes take (lib/http/history.ts); the engine keeps no longer ones. */
const MAX_JOB_NAME = 200;

const NO_HISTORY_TEXT = `No history yet: ${NO_OUTCOMES_TEXT} ${NO_BACKLOG_TEXT}`;

interface HistoryParams {
  range: HistoryRangeName;
  job: string | null;
  page: number;
}

function parseParams(params: { get(name: string): string | null }): HistoryParams {
  const job = params.get('job');
  const page = Number(params.get('page'));
  return {
    range: parseHistoryRange(params.get('range')),
    job: job && job.length <= MAX_JOB_NAME ? job : null,
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

/** The view in the URL: defaults left out, so a plain page keeps a plain address. */
function useHistoryParams() {
  const router = useRouter();
  const pathname = usePathname();
  const current = parseParams(useSearchParams());
  const update = (next: Partial<HistoryParams>) => {
    const view = { ...current, ...next };
    const query = new URLSearchParams();
    if (view.range !== '1h') query.set('range', view.range);
    if (view.job !== null) query.set('job', view.job);
    if (view.page > 1) query.set('page', String(view.page));
    const text = query.toString();
    router.replace(text === '' ? pathname : `${pathname}?${text}`, { scroll: false });
  };
  return { ...current, update };
}

function RangePicker({
  range,
  onChange,
}: {
  range: HistoryRangeName;
  onChange: (range: HistoryRangeName) => void;
}) {
  return (
    <div className="range-picker" role="group" aria-label="Range">
      {HISTORY_RANGE_OPTIONS.map((option) => (
        <button
          key={option.value}
          type="button"
          aria-pressed={option.value === range}
          onClick={() => onChange(option.value)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}

function Controls({
  params,
  fetching,
}: {
  params: ReturnType<typeof useHistoryParams>;
  fetching: boolean;
}) {
  return (
    <div className="history-controls">
      <RangePicker range={params.range} onChange={(range) => params.update({ range })} />
      {params.job !== null && (
        <p className="job-filter" data-testid="history-job-filter">
          Job name: <strong className="job-name">{params.job}</strong>{' '}
          <button type="button" onClick={() => params.update({ job: null })}>
            Show all job names
          </button>
        </p>
      )}
      <span className="muted" aria-live="polite">
        {fetching ? 'Updating…' : ''}
      </span>
    </div>
  );
}

/** The charts and the job names of one history, or what to do when it is empty. */
function HistoryContent({
  history,
  params,
}: {
  history: QueueHistory;
  params: ReturnType<typeof useHistoryParams>;
}) {
  const { job } = params;
  if (!history.hasData) {
    return (
      <p className="notice" data-testid="history-empty">
        {NO_HISTORY_TEXT} Nothing was recorded in the last {rangeOption(history.range).span}.
      </p>
    );
  }
  const outcomes = hasOutcomes(history);
  return (
    <>
      {!outcomes && (
        <p className="notice" data-testid="history-no-outcomes">
          {job === null
            ? `No job outcomes in the last ${rangeOption(history.range).span}. ${NO_OUTCOMES_TEXT}`
            : `No job named “${job}” ended in the last ${rangeOption(history.range).span}. ${NO_OUTCOMES_TEXT}`}
        </p>
      )}
      <div className="history-grid">
        {outcomes && (
          <>
            <ThroughputFigure history={history} />
            <FailureRateFigure history={history} />
            <TimingFigure history={history} kind="wait" />
            <TimingFigure history={history} kind="run" />
          </>
        )}
        <BacklogFigure history={history} jobName={job} />
      </div>
      <HistoryNames
        names={history.names}
        selected={job}
        onSelect={(name) => params.update({ job: name })}
      />
    </>
  );
}

function Loading({ error, what }: { error: Error | null; what: string }) {
  return error ? (
    <p role="alert" className="notice error">
      Could not load {what}: {error.message}
    </p>
  ) : (
    <p aria-live="polite">Loading {what}…</p>
  );
}

/** bullmq's per-minute lists, kept where a worker started with the metrics option wrote them. */
function MetricsOptionSection({
  prefix,
  name,
  range,
}: {
  prefix: string;
  name: string;
  range: HistoryRangeName;
}) {
  const minutes = range === '1h' ? 60 : range === '6h' ? 360 : 1_440;
  const { data } = useQueueMetrics(prefix, name, minutes);
  if (!data || !hasMetrics(data)) return null;
  return (
    <section className="card" data-queue={name} aria-labelledby="metrics-option-title">
      <h2 id="metrics-option-title">Per-minute counts from the metrics option</h2>
      <p className="muted">
        Written by workers started with the <code>metrics</code> option, bullmq&apos;s included (at
        most the last 24 h).
      </p>
      <ThroughputChart metrics={data} minutes={data.minutes} height={240} />
    </section>
  );
}

export function QueueHistoryView({ prefix, name }: { prefix: string; name: string }) {
  const params = useHistoryParams();
  const { data, error, isFetching } = useQueueHistory(prefix, name, params.range, params.job);
  return (
    <>
      <Controls params={params} fetching={isFetching && data !== undefined} />
      {data ? (
        <HistoryContent history={data} params={params} />
      ) : (
        <Loading error={error} what="the history" />
      )}
      <MetricsOptionSection prefix={prefix} name={name} range={params.range} />
    </>
  );
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

export function AllQueuesHistoryView() {
  const params = useHistoryParams();
  const { data, error, isFetching } = useHistoryAcross(params.range, params.job, params.page);
  const sparklines = useSparklines(data?.queues ?? []);
  if (!data) return <Loading error={error} what="the history" />;
  const first = (data.page - 1) * data.pageSize;
  const lastPage = Math.max(1, Math.ceil(data.discovered / data.pageSize));
  return (
    <>
      <Controls params={params} fetching={isFetching} />
      <p className="muted" data-testid="history-coverage">
        {data.queues.length === 0
          ? 'No queues found under the configured prefixes.'
          : data.discovered > data.queues.length
            ? `Summed over queues ${formatCount(first + 1)}–${formatCount(first + data.queues.length)} of ${formatCount(data.discovered)} (listed below); a queue's own page has its charts.`
            : `Summed over the ${formatCount(data.queues.length)} ${data.queues.length === 1 ? 'queue' : 'queues'} listed below.`}
        {!data.complete &&
          ' Queue discovery stopped at its scan limit: some queues may be missing.'}
      </p>
      {data.queues.length > 0 && <HistoryContent history={data} params={params} />}
      {data.queues.length > 0 && (
        <section className="card history-queues" aria-labelledby="history-queues-title">
          <div className="card-head">
            <h2 id="history-queues-title">Queues</h2>
            {lastPage > 1 && (
              <span className="actions">
                <button
                  type="button"
                  disabled={data.page <= 1}
                  onClick={() => params.update({ page: data.page - 1 })}
                >
                  Previous queues
                </button>{' '}
                <button
                  type="button"
                  disabled={data.page >= lastPage}
                  onClick={() => params.update({ page: data.page + 1 })}
                >
                  Next queues
                </button>
              </span>
            )}
          </div>
          <div className="table-scroll">
            <table data-testid="history-queues">
              <thead>
                <tr>
                  <th scope="col">Queue</th>
                  <th scope="col">Completed, last hour</th>
                  <th scope="col">Failed, last hour</th>
                </tr>
              </thead>
              <tbody>
                {data.queues.map((queue) => {
                  const line = sparklines.data?.queues.find(
                    (one) => one.prefix === queue.prefix && one.name === queue.name,
                  );
                  return (
                    <tr key={`${queue.prefix}:${queue.name}`} data-queue={queue.name}>
                      <th scope="row">
                        <Link
                          href={`/metrics/${encodeURIComponent(queue.prefix)}/${encodeURIComponent(queue.name)}`}
                        >
                          <span className="prefix">{queue.prefix}:</span>
                          {queue.name}
                        </Link>
                      </th>
                      <td>{line ? formatCount(sum(line.completed)) : '…'}</td>
                      <td>{line ? formatCount(sum(line.failed)) : '…'}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}
