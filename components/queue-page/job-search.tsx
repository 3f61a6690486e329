'use client';
/**
 * Search by id (direct lookup) or by name, text or a JSON path inside data. Scans are bounded
 * on the server; the answer says how far it looked, and "Continue" picks up at its cursor.
 * A name/text/path search also offers "all matching" bulk actions over the whole state.
 */
import { formatCount } from '@/lib/format-number';
import { useState, type FormEvent } from 'react';
import type { QueueCountState } from '@/lib/api-types';
import { BulkAll } from './bulk-all';
import { JobTable } from './job-table';
import { STATE_TABS } from './state-tabs';
import { useBulkRun, type BulkFilter } from './use-bulk-run';
import { useJobSearch, type SearchInput } from './use-queue-page';

/** The filter the bulk operation applies: the submitted search, minus its cursor. */
function toFilter(input: SearchInput): BulkFilter | null {
  if (input.mode === 'id') return null;
  return {
    mode: input.mode,
    query: input.q,
    ...(input.mode === 'path' ? { path: input.path } : {}),
  };
}

const MODES: { mode: SearchInput['mode']; label: string }[] = [
  { mode: 'id', label: 'Job id' },
  { mode: 'name', label: 'Job name' },
  { mode: 'text', label: 'Text in data' },
  { mode: 'path', label: 'JSON path in data' },
];

export function JobSearch({
  prefix,
  name,
  state,
}: {
  prefix: string;
  name: string;
  state: QueueCountState;
}) {
  const [mode, setMode] = useState<SearchInput['mode']>('text');
  const [q, setQ] = useState('');
  const [path, setPath] = useState('');
  const [searchState, setSearchState] = useState<QueueCountState>(state);
  const [input, setInput] = useState<SearchInput | null>(null);
  const { data, error, isFetching } = useJobSearch(prefix, name, input);
  const bulk = useBulkRun(prefix, name);
  const filter = input && toFilter(input);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setInput({ mode, q, path, state: searchState, cursor: 0 });
  };
  return (
    <section className="panel" aria-labelledby="search-heading">
      <h2 id="search-heading">Search jobs</h2>
      <form className="search-form" onSubmit={submit} role="search">
        <label>
          Search by
          <select
            aria-label="Search by"
            value={mode}
            onChange={(e) => setMode(e.target.value as SearchInput['mode'])}
          >
            {MODES.map((m) => (
              <option key={m.mode} value={m.mode}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
        {mode !== 'id' && (
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
        <button type="submit" className="primary" disabled={isFetching}>
          Search
        </button>
      </form>
      {error && (
        <p role="alert" className="notice error">
          {error.message}
        </p>
      )}
      {data && input && (
        <div data-testid="search-result">
          <p role="status" className="muted">
            {data.mode === 'id'
              ? data.matches.length === 0
                ? `No job with id ${input.q}.`
                : 'Found by id.'
              : `${data.matches.length} found · searched ${formatCount(data.to)} of ${formatCount(data.total)} ${data.state} jobs` +
                (data.next === null ? ' (all of them)' : '') +
                (data.stoppedBy === 'bytes' ? ' · partial: byte budget reached' : '') +
                (data.tooLarge > 0 ? ` · ${formatCount(data.tooLarge)} too large to search` : '')}
          </p>
          {data.matches.length > 0 && (
            <JobTable
              prefix={prefix}
              name={name}
              jobs={data.matches}
              now={Date.now()}
              caption="Search results"
            />
          )}
          {data.next !== null && (
            <button type="button" onClick={() => setInput({ ...input, cursor: data.next ?? 0 })}>
              Continue searching
            </button>
          )}
          {filter && (
            <div className="bulk-bar" role="group" aria-label="Bulk actions on matching jobs">
              <BulkAll
                name={name}
                state={input.state}
                total={data.total}
                filter={filter}
                disabled={isFetching}
                bulk={bulk}
              />
            </div>
          )}
        </div>
      )}
    </section>
  );
}
