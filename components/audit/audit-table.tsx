'use client';
import { useState } from 'react';
import { useAuditPage } from './use-audit';

export function AuditTable() {
  // The cursors of the pages visited, so "Newer" can step back.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const before = cursors[cursors.length - 1] ?? null;
  const { data, error, isPending } = useAuditPage(before);
  if (isPending) return <p aria-live="polite">Loading audit log…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load the audit log: {error.message}
      </p>
    );
  }
  return (
    <>
      {data.entries.length === 0 ? (
        <p>No mutations recorded yet.</p>
      ) : (
        <table>
          <caption className="visually-hidden">Audit log, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              <th scope="col">Outcome</th>
              <th scope="col">Parameters</th>
            </tr>
          </thead>
          <tbody>
            {data.entries.map((entry) => (
              <tr key={entry.id}>
                <td>
                  <time dateTime={new Date(entry.at).toISOString()}>
                    {new Date(entry.at).toLocaleString()}
                  </time>
                </td>
                <td>
                  {entry.actor} ({entry.role})
                </td>
                <td>{entry.action}</td>
                <td>{entry.target}</td>
                <td>
                  {entry.outcome} · {entry.status}
                  {entry.code && ` · ${entry.code}`}
                </td>
                <td>
                  <code>{JSON.stringify(entry.params)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        <button
          type="button"
          disabled={cursors.length === 1}
          onClick={() => setCursors((list) => list.slice(0, -1))}
        >
          Newer
        </button>{' '}
        <button
          type="button"
          disabled={data.next === null}
          onClick={() => data.next && setCursors((list) => [...list, data.next])}
        >
          Older
        </button>
      </p>
    </>
  );
}
