'use client';
/**
 * The job names of the range with their outcomes and p95 times, busiest first. A name is a
 * button that narrows the charts to it (the page keeps it in the URL); names are the user's
 * data and shown as plain text, as the job lists show them.
 */
import type { HistoryNameSummary } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { formatMs } from './history-format';

export function HistoryNames({
  names,
  selected,
  onSelect,
}: {
  names: readonly HistoryNameSummary[];
  selected: string | null;
  onSelect: (name: string | null) => void;
}) {
  return (
    <section className="card history-names" aria-labelledby="history-names-title">
      <div className="card-head">
        <h2 id="history-names-title">Job names</h2>
        {selected !== null && (
          <button type="button" className="card-link" onClick={() => onSelect(null)}>
            Show all job names
          </button>
        )}
      </div>
      {names.length === 0 ? (
        <p className="muted">No job name was recorded in this range.</p>
      ) : (
        <div className="table-scroll">
          <table data-testid="history-names">
            <thead>
              <tr>
                <th scope="col">Job name</th>
                <th scope="col">Completed</th>
                <th scope="col">Failed</th>
                <th scope="col">Retried</th>
                <th scope="col">Wait p95</th>
                <th scope="col">Run p95</th>
              </tr>
            </thead>
            <tbody>
              {names.map((row) => (
                <tr key={row.name} className={row.name === selected ? 'selected' : undefined}>
                  <th scope="row">
                    <button
                      type="button"
                      className="link-button job-name"
                      aria-pressed={row.name === selected}
                      onClick={() => onSelect(row.name === selected ? null : row.name)}
                    >
                      {row.name}
                    </button>
                  </th>
                  <td>{formatCount(row.completed)}</td>
                  <td>{formatCount(row.failed)}</td>
                  <td>{formatCount(row.retried)}</td>
                  <td>{row.wait ? formatMs(row.wait.p95Ms) : '—'}</td>
                  <td>{row.run ? formatMs(row.run.p95Ms) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
