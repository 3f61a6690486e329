'use client';
/**
 * Search by id (a direct lookup) or by name, text or a JSON path inside data. A name, text or
 * path search walks the whole state on the server and streams what it finds, newest first
 * unless asked otherwise, with progress and a Stop button. The search lives in the URL
 * (`?mode=text&q=…&in=failed&order=newest`), so it can be shared, and a shared link runs it.
 * A search also offers its result for export and "all matching" bulk actions over the state.
 */
import { useSearchParams } from 'next/navigation';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { QueueCountState } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { BulkAll } from './bulk-all';
import { ExportLinks, type ExportFilter } from './export-links';
import { JobTable } from './job-table';
import { STATE_TABS } from './state-tabs';
import { useBulkRun } from './use-bulk-run';
import { useJobSearch, type SearchInput } from './use-queue-page';
import { useSearchStream, type SearchStreamState } from './use-search-stream';

type Mode = SearchInput['mode'];
type Order = 'newest' | 'oldest';

const MODES: { mode: Mode; label: string }[] = [
  { mode: 'id', label: 'Job id' },
  { mode: 'name', label: 'Job name' },
  { mode: 'text', label: 'Text in data' },
  { mode: 'path', label: 'JSON path in data' },
];

/** The URL query keys a search uses; `state` is the page's tab, so the search's state is `in`. */
const URL_KEYS = ['mode', 'q', 'path', 'in', 'order'] as const;

interface Submitted {
  mode: Mode;
  q: string;
  path: string;
  state: QueueCountState;
  order: Order;
}

function fromUrl(params: URLSearchParams, fallbackState: QueueCountState): Submitted | null {
  const mode = MODES.find((m) => m.mode === params.get('mode'))?.mode;
  const q = params.get('q') ?? '';
  const path = params.get('path') ?? '';
  if (!mode || (mode === 'path' ? path === '' : q.trim() === '')) return null;
  const state = STATE_TABS.find((tab) => tab.state === params.get('in'))?.state ?? fallbackState;
  return { mode, q, path, state, order: params.get('order') === 'oldest' ? 'oldest' : 'newest' };
}

function writeUrl(search: Submitted | null): void {
  const url = new URL(window.location.href);
  for (const key of URL_KEYS) url.searchParams.delete(key);
  if (search) {
    url.searchParams.set('mode', search.mode);
    url.searchParams.set('q', search.q);
    if (search.mode === 'path') url.searchParams.set('path', search.path);
    if (search.mode !== 'id') {
      url.searchParams.set('in', search.state);
      url.searchParams.set('order', search.order);
    }
  }
  window.history.replaceState(window.history.state, '', url);
}

function toFilter(search: Submitted): ExportFilter | null {
  if (search.mode === 'id') return null;
  return {
    mode: search.mode,
    query: search.q,
    ...(search.mode === 'path' ? { path: search.path } : {}),
  };
}

function streamParams(search: Submitted): URLSearchParams {
  const params = new URLSearchParams({
    mode: search.mode,
    q: search.q,
    state: search.state,
    order: search.order,
  });
  if (search.mode === 'path') params.set('path', search.path);
  return params;
}

function progressText(stream: SearchStreamState, state: QueueCountState): string {
  const found = `${formatCount(stream.rows.length)} found`;
  const looked = `searched ${formatCount(stream.scanned)} of ${formatCount(stream.total)} ${state} jobs`;
  const tail =
    stream.status === 'running'
      ? ' …'
      : stream.status === 'stopped'
        ? ' · stopped'
        : stream.stoppedBy === 'matches'
          ? ' · stopped at the match limit: narrow the search'
          : stream.stoppedBy === 'time'
            ? ' · stopped at the time limit'
            : ' (all of them)';
  const large = stream.tooLarge > 0 ? ` · ${formatCount(stream.tooLarge)} too large to search` : '';
  return `${found} · ${looked}${tail}${large}`;
}

export function JobSearch({
  prefix,
  name,
  state,
}: {
  prefix: string;
  name: string;
  state: QueueCountState;
}) {
  const urlParams = useSearchParams();
  const [initial] = useState(() => fromUrl(new URLSearchParams(urlParams.toString()), state));
  const [mode, setMode] = useState<Mode>(initial?.mode ?? 'text');
  const [q, setQ] = useState(initial?.q ?? '');
  const [path, setPath] = useState(initial?.path ?? '');
  const [searchState, setSearchState] = useState<QueueCountState>(initial?.state ?? state);
  const [order, setOrder] = useState<Order>(initial?.order ?? 'newest');
  const [submitted, setSubmitted] = useState<Submitted | null>(null);
  const stream = useSearchStream(prefix, name);
  const idInput: SearchInput | null =
    submitted?.mode === 'id'
      ? { mode: 'id', q: submitted.q, path: '', state: submitted.state, cursor: 0 }
      : null;
  const byId = useJobSearch(prefix, name, idInput);
  const bulk = useBulkRun(prefix, name);
  const filter = submitted && toFilter(submitted);

  const run = (search: Submitted) => {
    setSubmitted(search);
    writeUrl(search);
    if (search.mode === 'id') stream.stop();
    else void stream.start(streamParams(search));
  };
  // A shared link runs its search once, as the page opens (the ref keeps it to once).
  const ranFromUrl = useRef(false);
  useEffect(() => {
    if (ranFromUrl.current || !initial) return;
    ranFromUrl.current = true;
    run(initial);
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    run({ mode, q, path, state: searchState, order });
  };
  const running = stream.status === 'running';
  return (
    <section className="panel" aria-labelledby="search-heading">
      <h2 id="search-heading">Search jobs</h2>
      <form className="search-form" onSubmit={submit} role="search">
        <label>
          Search by
          <select
            aria-label="Search by"
            value={mode}
            onChange={(e) => setMode(e.target.value as Mode)}
          >
            {MODES.map((m) => (
              <option key={m.mode} value={m.mode}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
        {mode !== 'id' && (
          <>
            <label>
              In state
              <select
                aria-label="In state"
                value={searchState}
                onChange={(e) => setSearchState(e.target.value as QueueCountState)}
              >
                {STATE_TABS.map((tab) => (
                  <option key={tab.state} value={tab.state}>
                    {tab.label}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Order
              <select
                aria-label="Order"
                value={order}
                onChange={(e) => setOrder(e.target.value as Order)}
              >
                <option value="newest">Newest first</option>
                <option value="oldest">Oldest first</option>
              </select>
            </label>
          </>
        )}
        {mode === 'path' && (
          <label>
            Path
            <input
              aria-label="Path"
              value={path}
              onChange={(e) => setPath(e.target.value)}
              placeholder="user.email"
              required
            />
          </label>
        )}
        <label>
          {mode === 'path' ? 'Equals' : 'Value'}
          <input
            aria-label={mode === 'path' ? 'Equals' : 'Value'}
            value={q}
            onChange={(e) => setQ(e.target.value)}
            required={mode !== 'path'}
          />
        </label>
        <button type="submit" className="primary" disabled={byId.isFetching}>
          Search
        </button>
        {running && (
          <button type="button" onClick={stream.stop}>
            Stop
          </button>
        )}
      </form>
      {submitted?.mode === 'id' && (
        <IdResult prefix={prefix} name={name} id={submitted.q} lookup={byId} />
      )}
      {submitted && submitted.mode !== 'id' && stream.status !== 'idle' && (
        <div data-testid="search-result">
          {stream.error && (
            <p role="alert" className="notice error">
              {stream.error}
            </p>
          )}
          <p role="status" className="muted" aria-busy={running}>
            {progressText(stream, submitted.state)}
          </p>
          {running && stream.total > 0 && (
            <progress
              aria-label="Search progress"
              max={stream.total}
              value={Math.min(stream.scanned, stream.total)}
            />
          )}
          {stream.rows.length > 0 && (
            <JobTable
              prefix={prefix}
              name={name}
              jobs={stream.rows}
              now={Date.now()}
              caption="Search results"
            />
          )}
          {filter && (
            <div className="bulk-bar" role="group" aria-label="Bulk actions on matching jobs">
              <ExportLinks
                prefix={prefix}
                name={name}
                state={submitted.state}
                order={submitted.order}
                filter={filter}
                label="Export matching jobs"
              />
              <BulkAll
                name={name}
                state={submitted.state}
                total={stream.total}
                filter={filter}
                disabled={running}
                bulk={bulk}
              />
            </div>
          )}
        </div>
      )}
    </section>
  );
}

function IdResult({
  prefix,
  name,
  id,
  lookup,
}: {
  prefix: string;
  name: string;
  id: string;
  lookup: ReturnType<typeof useJobSearch>;
}) {
  if (lookup.error) {
    return (
      <p role="alert" className="notice error">
        {lookup.error.message}
      </p>
    );
  }
  if (!lookup.data) return null;
  return (
    <div data-testid="search-result">
      <p role="status" className="muted">
        {lookup.data.matches.length === 0 ? `No job with id ${id}.` : 'Found by id.'}
      </p>
      {lookup.data.matches.length > 0 && (
        <JobTable
          prefix={prefix}
          name={name}
          jobs={lookup.data.matches}
          now={Date.now()}
          caption="Search results"
        />
      )}
    </div>
  );
}
